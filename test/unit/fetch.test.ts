// Downloading one source node (src/ipdb/fetch.ts) from a loopback node:http
// server: redirects and their limit, the size cap before and while the body
// streams, the total timeout, conditional requests, and that nothing of a
// download (connection, file) is left open once fetchSource has settled.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { listenLoopback, type Loopback } from '../helpers/loopback.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, type FetchLimits, fetchSource } from '../../src/ipdb/fetch.js';

const BODY = Buffer.from('1.0.0.0,1.0.0.255,13335,CLOUDFLARENET\n');
const ETAG = '"body-1"';
const CHUNK = Buffer.alloc(16 * 1024, 0x41);

let server: Loopback;
let base: string;
/** Bytes the endless handler managed to write before the client went away. */
let endlessSent = 0;
let endlessClosed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  const publisher = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hop = Number(url.searchParams.get('hop') ?? 0);
    switch (url.pathname) {
      case '/body':
        if (req.headers['if-none-match'] === ETAG) {
          res.writeHead(304, { ETag: ETAG });
          res.end();
          return;
        }
        res.writeHead(200, { 'Content-Length': String(BODY.length), ETag: ETAG });
        res.end(BODY);
        return;
      case '/redirect': {
        // hop n redirects to hop n-1, the last to /body; relative and absolute Locations alternate.
        const next = hop > 1 ? `/redirect?hop=${hop - 1}` : '/body';
        res.writeHead(hop % 2 ? 302 : 301, { Location: hop % 2 ? next : `${base}${next}` });
        res.end();
        return;
      }
      case '/declared-too-large':
        res.writeHead(200, { 'Content-Length': String(10 * 1024 * 1024) });
        res.write(CHUNK);
        return; // the rest never comes: the client must refuse on the header alone
      case '/endless': {
        // No Content-Length: chunks as fast as the client takes them, until it goes away.
        endlessSent = 0;
        endlessClosed = new Promise((resolve) => res.on('close', () => resolve()));
        res.writeHead(200);
        const pump = () => {
          while (!res.destroyed && endlessSent < 64 * 1024 * 1024) {
            endlessSent += CHUNK.length;
            if (!res.write(CHUNK)) return void res.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case '/drip': {
        // A byte every 100 ms: never silent for long, never complete.
        res.writeHead(200);
        const timer = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      default:
        res.writeHead(404);
        res.end();
    }
  });
  server = await listenLoopback(publisher);
  base = server.base;
});

afterAll(() => server?.close());

function scratch(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'splitguard-fetch-'));
}

async function failure(node: string, limits: FetchLimits = DEFAULT_LIMITS): Promise<string> {
  const dir = scratch();
  try {
    await fetchSource(node, dir, {}, limits);
  } catch (err) {
    return (err as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`expected ${node} to fail`);
}

/** Waits until the server holds no connection from the client. */
async function connectionsGone(ms = 2000): Promise<number> {
  const until = Date.now() + ms;
  while (server.open.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return server.open.size;
}

describe('fetchSource over HTTP', () => {
  it('downloads the body with its validators, and leaves no connection open', async () => {
    const dir = scratch();
    try {
      const got = await fetchSource(`${base}/body`, dir, {});
      expect(got.unchanged).toBe(false);
      expect(got.parts).toHaveLength(1);
      expect(got.parts[0]).toMatchObject({ url: `${base}/body`, bytes: BODY.length, validators: { etag: ETAG } });
      expect(readFileSync(got.parts[0].file!)).toEqual(BODY);
      expect(await connectionsGone()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks conditionally and reports an unchanged node on 304', async () => {
    const dir = scratch();
    try {
      const got = await fetchSource(`${base}/body`, dir, { [`${base}/body`]: { etag: ETAG } });
      expect(got.unchanged).toBe(true);
      expect(got.parts[0]).toMatchObject({ file: null, bytes: 0, validators: { etag: ETAG } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows up to 5 redirects, relative or absolute, and records the validators under the configured URL', async () => {
    const dir = scratch();
    const url = `${base}/redirect?hop=5`;
    try {
      const got = await fetchSource(url, dir, {});
      expect(got.parts[0]).toMatchObject({ url, bytes: BODY.length, validators: { etag: ETAG } });
      expect(readFileSync(got.parts[0].file!)).toEqual(BODY);
      // Asked again with those validators, the redirected request is conditional too.
      const again = await fetchSource(url, dir, { [url]: got.parts[0].validators });
      expect(again.unchanged).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a sixth redirect', async () => {
    expect(await failure(`${base}/redirect?hop=6`)).toMatch(/too many redirects/);
  });

  it('names the status of an answer that is not 200', async () => {
    expect(await failure(`${base}/missing`)).toBe(`${base}/missing: HTTP 404`);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const message = await failure(`${base}/declared-too-large`, { ...DEFAULT_LIMITS, maxBytes: 1024 * 1024 });
    expect(message).toMatch(/the body \(10485760 bytes\) is larger than the 1048576-byte limit/);
    expect(await connectionsGone()).toBe(0);
  });

  it('stops reading an undeclared body as soon as it passes the cap', async () => {
    const maxBytes = 1024 * 1024;
    const message = await failure(`${base}/endless`, { ...DEFAULT_LIMITS, maxBytes });
    expect(message).toMatch(/the body is larger than the 1048576-byte limit/);
    await endlessClosed;
    // What the server wrote before the connection closed: the cap, plus what
    // the socket buffers on both sides held (a few MiB at most), not the 64 MiB it offers.
    expect(endlessSent).toBeGreaterThan(maxBytes);
    expect(endlessSent).toBeLessThan(16 * maxBytes);
  });

  it('gives up after the total time even while data keeps coming', async () => {
    const started = performance.now();
    const message = await failure(`${base}/drip`, { ...DEFAULT_LIMITS, idleMs: 1000, totalMs: 600 });
    expect(message).toMatch(/no complete answer within 600 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(590);
    expect(await connectionsGone()).toBe(0);
  });
});
