// Raw HTTP/1.1 over TLS (node:tls): the request goes out byte for byte as
// given, and the answer comes back unparsed, so a test can see exactly what
// the server wrote (a header break, a control character) or that it answered
// nothing and closed. Trusts only the server's own certificate.
import tls from 'node:tls';

export interface RawAnswer {
  /** 'answered': a whole response head (and its Content-Length body) arrived. */
  outcome: 'answered' | 'closed' | 'timeout';
  /** The raw bytes received, latin1-decoded (one char per byte). */
  raw: string;
  status: number;
  /** Header lines as received, in order: [name as sent, value]. */
  headers: [string, string][];
  body: string;
  ms: number;
}

export interface RawOptions {
  port: number;
  ca: string;
  timeoutMs?: number;
  localAddress?: string;
}

/** Parses one response head + Content-Length body from the start of `raw`, or null when incomplete. */
export function parseResponse(raw: string): Omit<RawAnswer, 'outcome' | 'ms'> | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = raw.slice(0, end).split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(lines[0]);
  const headers = lines.slice(1).map((l): [string, string] => {
    const i = l.indexOf(':');
    return i < 0 ? [l, ''] : [l.slice(0, i), l.slice(i + 1).trim()];
  });
  const length = Number(headers.find(([n]) => n.toLowerCase() === 'content-length')?.[1] ?? 0);
  const body = raw.slice(end + 4);
  if (body.length < length) return null;
  return { raw, status: m ? Number(m[1]) : 0, headers, body: body.slice(0, length) };
}

/** Sends `bytes` on a new TLS connection and waits for one response, the close, or the timeout. */
export function rawRequest(bytes: string | Buffer, options: RawOptions): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let raw = '';
    let settled = false;
    const finish = (outcome: RawAnswer['outcome']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(raw);
      const ms = performance.now() - started;
      resolve(parsed ? { outcome: 'answered', ms, ...parsed } : { outcome, raw, status: 0, headers: [], body: '', ms });
    };
    // localAddress is passed on to net.connect (the tls typings omit it).
    const connect = { host: '127.0.0.1', port: options.port, ca: options.ca, servername: 'localhost', localAddress: options.localAddress } as tls.ConnectionOptions;
    const socket = tls.connect(connect, () => {
      socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
    });
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs ?? 5000);
    socket.on('data', (d: Buffer) => {
      raw += d.toString('latin1');
      if (parseResponse(raw)) finish('answered');
    });
    socket.on('close', () => finish('closed'));
    socket.on('error', () => finish('closed'));
  });
}

/** The value of the one header named `name` (case-insensitive); throws when it is absent or repeated. */
export function header(answer: RawAnswer, name: string): string {
  const found = answer.headers.filter(([n]) => n.toLowerCase() === name.toLowerCase());
  if (found.length !== 1) throw new Error(`expected one ${name} header, got ${found.length}:\n${answer.raw}`);
  return found[0][1];
}
