// A small HTTPS client for the test servers: node:https, one fresh connection
// per request (no agent, so no connection outlives its test), the server's own
// certificate as the only trusted CA, and full verification (the certificate
// must be valid for 127.0.0.1).
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';

export interface RequestOptions {
  port: number;
  ca: string;
  method?: string;
  path: string;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  /** A raw body (string or bytes), sent as is. */
  body?: string | Buffer;
  /** A JSON body: serialised, with Content-Type application/json. */
  json?: unknown;
  /** Send the body with Transfer-Encoding: chunked (in 16 KiB chunks) instead of Content-Length. */
  chunked?: boolean;
  /** Send the body in two parts: the first `at` bytes, then (after `until` resolves) the rest. */
  pause?: { at: number; until: () => Promise<void> };
  /** The local address to connect from (any 127.x.y.z works on loopback). */
  localAddress?: string;
  timeoutMs?: number;
  /** A keep-alive agent, for tests that need back-to-back requests on open connections (the test destroys it). */
  agent?: https.Agent;
}

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body when the response is JSON, else undefined. */
  json: any;
}

export function request(options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  let body: Buffer | undefined;
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json));
    headers['Content-Type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  }
  if (body && options.chunked) headers['Transfer-Encoding'] = 'chunked';
  else if (body) headers['Content-Length'] = String(body.length);

  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const req = https.request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers,
        ca: options.ca,
        agent: options.agent ?? false,
        localAddress: options.localAddress,
        timeout: options.timeoutMs ?? 15_000,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if (/json/.test(res.headers['content-type'] ?? '')) {
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no response from port ${options.port} within the timeout`)));
    // The server may answer (413, 400) before it has read the whole body; a
    // write error after the answer arrived is expected, not a failure.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (!body) {
      req.end();
    } else if (options.pause) {
      const { at, until } = options.pause;
      req.write(body.subarray(0, at), () => {
        until().then(
          () => req.end(body.subarray(at)),
          (err: unknown) => req.destroy(err as Error),
        );
      });
    } else if (options.chunked) {
      // Several chunks, so that a server's cap is exercised while it reads.
      for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** GET or another body-less request with a key: the common case. */
export function call(port: number, ca: string, method: string, path: string, key?: string): Promise<Response> {
  return request({ port, ca, method, path, key });
}

/** The RateLimit-* and Retry-After headers as numbers (NaN when absent). */
export function limits(r: Response): { limit: number; remaining: number; reset: number; retryAfter: number } {
  const n = (name: string) => Number(r.headers[name] ?? Number.NaN);
  return { limit: n('ratelimit-limit'), remaining: n('ratelimit-remaining'), reset: n('ratelimit-reset'), retryAfter: n('retry-after') };
}
