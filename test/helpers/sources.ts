// Database sources for refresh tests: a real node:http server on 127.0.0.1
// that serves the installed @ip-location-db/asn files, well or badly. The
// first path segment chooses the behaviour, so one server holds several
// sources (`/status500/asn-ipv4.csv|/status500/asn-ipv6.csv`, then
// `/valid/...`):
//
//   valid      the package files, with ETag and Last-Modified; a request
//              whose If-None-Match or If-Modified-Since matches gets 304
//   tooSmall   the first 10,000 lines of the IPv4 file and 50,000 of the
//              IPv6 file, and the line of 208.67.222.222: well-formed,
//              resolves the well-known addresses (8.8.8.8 is line 5321,
//              2606:4700:4700:: line 41583), but has far fewer ranges than
//              the database it would replace
//   incomplete the first 1000 lines of each file: well-formed, but 8.8.8.8
//              and the other well-known addresses are missing
//   status500  500 Internal Server Error
//   truncated  Content-Length of the whole file, half the body, then the
//              connection is destroyed
//   garbage    200 with 64 KiB of (seeded) random bytes
//   gzipBomb   200 with ~0.6 MB of gzip that inflates to 600 MiB of zeros
//   hang       accepts the request and never answers
//   longLine   gzip (about 140 KB) of one line of 140,000,000 commas: split, it
//              ended the whole process (a V8 fatal error past ~134 M elements)
//   notModified 304 Not Modified to every request, conditional or not (a
//              misbehaving CDN)
//
// A refused connection needs no server: closedPortLocation() gives URLs on a
// port nothing listens on. Every request is logged with its conditional
// headers and the status answered, so tests can assert what was asked.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { listenLoopback } from './loopback.js';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';
import { type FeedServer, startFeedServer } from './feed-server.js';
import { ROOT } from './ipdb-cache.js';
import { freePort } from './ports.js';
import { NO_RATE_LIMIT } from './routes.js';
import { startServer, type TestServer } from './server.js';

type SourceMode = 'valid' | 'tooSmall' | 'incomplete' | 'status500' | 'truncated' | 'garbage' | 'gzipBomb' | 'hang' | 'longLine' | 'notModified';

export const FILES = ['asn-ipv4.csv', 'asn-ipv6.csv'] as const;

interface SourceRequest {
  mode: string;
  file: string;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  /** The status answered; 0 when the server never answered (hang) or cut the body (truncated). */
  status: number;
}

export interface SourceServer {
  /** http://127.0.0.1:<port> */
  base: string;
  /** The source location (IPv4 URL | IPv6 URL) serving `mode`. */
  location(mode: SourceMode): string;
  /** Every request so far, in arrival order. */
  readonly requests: SourceRequest[];
  /**
   * The valid files' revision: part of their ETag and Last-Modified. Bumping
   * it makes the same bytes look new, so a conditional request gets 200.
   */
  revision: number;
  /** The current ETag of a valid file. */
  etag(file: string): string;
  /** The current Last-Modified of the valid files. */
  lastModified(): string;
  close(): Promise<void>;
}

/** The package file contents, read once per test process. */
let packageFiles: Map<string, Buffer> | null = null;
function packageFile(name: string): Buffer {
  packageFiles ??= new Map(FILES.map((f) => [f, readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', f))]));
  return packageFiles.get(name)!;
}

function firstLines(data: Buffer, n: number): Buffer {
  let at = 0;
  for (let i = 0; i < n && at >= 0; i++) at = data.indexOf(10, at) + 1 || -1;
  return at > 0 ? data.subarray(0, at) : data;
}

/** The line of `data` that starts with `prefix`, with its line break. */
function lineStarting(data: Buffer, prefix: string): Buffer {
  const at = data.indexOf(`\n${prefix}`) + 1;
  if (at === 0) throw new Error(`no line starts with ${prefix}`);
  return data.subarray(at, data.indexOf(10, at) + 1);
}

/** Decompresses past the parser's 512 MiB cap: 600 gzip members of 1 MiB of zeros (RFC 1952 allows members back to back). */
let bomb: Buffer | null = null;
function gzipBomb(): Buffer {
  bomb ??= Buffer.concat(Array(600).fill(gzipSync(Buffer.alloc(1 << 20), { level: 9 })));
  return bomb;
}

let longLine: Buffer | null = null;
function commaLine(): Buffer {
  longLine ??= gzipSync(Buffer.alloc(140_000_000, ','), { level: 9 });
  return longLine;
}

/** 64 KiB of seeded pseudo-random bytes (xorshift32): the same garbage every run. */
function garbage(): Buffer {
  const bytes = Buffer.alloc(64 * 1024);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  bytes[0] = 0x00; // not the gzip magic
  return bytes;
}

export async function startSourceServer(): Promise<SourceServer> {
  const requests: SourceRequest[] = [];
  const lastModified = (rev: number) => new Date(Date.UTC(2026, 0, 1) + rev * 60_000).toUTCString();
  const state = {
    revision: 1,
    etag: (file: string) => `"${file}-r${state.revision}"`,
  };

  const server = http.createServer((req, res) => {
    const [, mode = '', file = ''] = (req.url ?? '').split('?')[0].split('/');
    const entry: SourceRequest = {
      mode,
      file,
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
      status: 0,
    };
    requests.push(entry);
    const send = (status: number, body: Buffer, headers: Record<string, string> = {}) => {
      entry.status = status;
      res.writeHead(status, { 'Content-Length': String(body.length), ...headers });
      res.end(body);
    };
    if (!(FILES as readonly string[]).includes(file)) return send(404, Buffer.from('no such file\n'));
    switch (mode as SourceMode) {
      case 'valid': {
        const etag = state.etag(file);
        const modified = lastModified(state.revision);
        const matches = entry.ifNoneMatch !== undefined ? entry.ifNoneMatch === etag : entry.ifModifiedSince === modified;
        if (matches) {
          entry.status = 304;
          res.writeHead(304, { ETag: etag, 'Last-Modified': modified });
          res.end();
          return;
        }
        return send(200, packageFile(file), { 'Content-Type': 'text/csv', ETag: etag, 'Last-Modified': modified });
      }
      case 'tooSmall':
        return send(200, file === 'asn-ipv4.csv' ? Buffer.concat([firstLines(packageFile(file), 10_000), lineStarting(packageFile(file), '208.67.216.0,')]) : firstLines(packageFile(file), 50_000), { 'Content-Type': 'text/csv' });
      case 'incomplete':
        return send(200, firstLines(packageFile(file), 1000), { 'Content-Type': 'text/csv' });
      case 'status500':
        return send(500, Buffer.from('Internal Server Error\n'));
      case 'truncated': {
        const body = packageFile(file);
        res.writeHead(200, { 'Content-Type': 'text/csv', 'Content-Length': String(body.length) });
        res.write(body.subarray(0, body.length >> 1), () => res.socket?.destroy());
        return;
      }
      case 'garbage':
        return send(200, garbage(), { 'Content-Type': 'text/csv' });
      case 'gzipBomb':
        return send(200, gzipBomb(), { 'Content-Type': 'application/gzip' });
      case 'longLine':
        return send(200, commaLine(), { 'Content-Type': 'application/gzip' });
      case 'hang':
        return; // the socket stays open and silent until close()
      case 'notModified':
        entry.status = 304;
        res.writeHead(304, { ETag: state.etag(file) });
        res.end();
        return;
      default:
        return send(404, Buffer.from('no such mode\n'));
    }
  });
  const { base, close } = await listenLoopback(server);

  return {
    base,
    location: (mode) => FILES.map((f) => `${base}/${mode}/${f}`).join('|'),
    requests,
    get revision() {
      return state.revision;
    },
    set revision(n: number) {
      state.revision = n;
    },
    etag: (file) => state.etag(file),
    lastModified: () => lastModified(state.revision),
    close,
  };
}

/** One data line of the package's CSV: its fields as the file has them (`org` still quoted when it is). */
export interface PackageLine {
  start: string;
  end: string;
  asn: number;
  org: string;
}

/**
 * A package file with every line rewritten by `rewrite` (given its fields and
 * its index), as a hostile publisher would serve it; the file otherwise as
 * shipped. A line the rewrite returns unchanged keeps its bytes.
 */
export function rewrittenPackageFile(file: (typeof FILES)[number], rewrite: (line: PackageLine, index: number) => PackageLine): Buffer {
  const lines = packageFile(file).toString('utf8').split('\n');
  const out = lines.map((text, i) => {
    if (text === '') return text;
    const [start, end, asn] = text.split(',', 3);
    const org = text.slice(start.length + end.length + asn.length + 3);
    const line = rewrite({ start, end, asn: Number(asn), org }, i);
    return `${line.start},${line.end},${line.asn},${line.org}`;
  });
  return Buffer.from(out.join('\n'));
}

/** A source on a loopback port that nothing listens on: connecting is refused. */
export async function closedPortLocation(): Promise<string> {
  const port = await freePort();
  return FILES.map((f) => `http://127.0.0.1:${port}/${f}`).join('|');
}

/**
 * For a test file: a publisher on loopback of ASN data whose IPv4 file is
 * `v4()` (made before the file's tests; served gzipped with `gzip`) and
 * whose IPv6 file is `v6()`, by default the package's, and a server
 * refreshing from it, then, with `fallback`, from a source server's valid
 * files. `locations` are the server's sources in order; everything is
 * closed after the file's tests.
 */
export function usePublishedAsnData(
  v4: () => Buffer,
  options: { gzip?: boolean; fallback?: boolean; v6?: () => Buffer } = {},
): { server: TestServer; locations: string[] } {
  const ctx = {} as { server: TestServer; locations: string[] };
  let publisher: FeedServer | undefined;
  let sources: SourceServer | undefined;
  beforeAll(async () => {
    publisher = await startFeedServer();
    const v4Path = options.gzip ? '/asn-ipv4.csv.gz' : '/asn-ipv4.csv';
    publisher.routes.set(v4Path, { body: options.gzip ? gzipSync(v4()) : v4() });
    publisher.routes.set('/asn-ipv6.csv', { body: options.v6?.() ?? packageFile('asn-ipv6.csv') });
    ctx.locations = [`${publisher.url(v4Path)}|${publisher.url('/asn-ipv6.csv')}`];
    if (options.fallback) {
      sources = await startSourceServer();
      ctx.locations.push(sources.location('valid'));
    }
    ctx.server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: ctx.locations.join(',') } });
  });
  afterAll(async () => {
    await ctx.server?.close();
    await sources?.close();
    await publisher?.close();
  });
  return ctx;
}
