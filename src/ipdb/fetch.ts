// Downloading database sources. A *node* is one source location: a single
// URL (a file with both families, e.g. iptoasn's combined TSV) or an IPv4
// and an IPv6 URL joined by "|". http:, https: and file: URLs; `package:` is
// the installed @ip-location-db/asn package.
//
// Per URL: a connect timeout, an idle timeout, a total timeout, a size cap,
// up to 5 redirects, and conditional requests (If-None-Match /
// If-Modified-Since from the validators of the last accepted download) so
// that an unchanged source costs one round trip. gzip bodies are written as
// they come; the parser detects and inflates them under its own size cap.
import { createWriteStream, statSync, type WriteStream } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedSource } from './embedded.js';

export const DEFAULT_SOURCES = [
  'https://raw.githubusercontent.com/sapics/ip-location-db/main/asn/asn-ipv4.csv|https://raw.githubusercontent.com/sapics/ip-location-db/main/asn/asn-ipv6.csv',
  'https://cdn.jsdelivr.net/gh/sapics/ip-location-db@main/asn/asn-ipv4.csv|https://cdn.jsdelivr.net/gh/sapics/ip-location-db@main/asn/asn-ipv6.csv',
  'https://iptoasn.com/data/ip2asn-combined.tsv.gz',
  'package:',
];

export interface FetchLimits {
  connectMs: number;
  idleMs: number;
  totalMs: number;
  maxBytes: number;
}

export const DEFAULT_LIMITS: FetchLimits = {
  connectMs: 10_000,
  idleMs: 30_000,
  totalMs: 300_000,
  maxBytes: 256 * 1024 * 1024,
};

/**
 * The limits for a silence timeout (SPLITGUARD_IPDB_FETCH_TIMEOUT_MS): the
 * idle timeout, and the connect timeout when that is shorter than the default.
 */
export function limitsFor(silenceMs: number): FetchLimits {
  return { ...DEFAULT_LIMITS, connectMs: Math.min(DEFAULT_LIMITS.connectMs, silenceMs), idleMs: silenceMs };
}

/** What a server said about a body, to ask "has it changed?" next time. */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface Downloaded {
  url: string;
  /** The body on disk, or null when the server answered 304 Not Modified. */
  file: string | null;
  bytes: number;
  validators: Validators;
}

export class FetchError extends Error {
  constructor(url: string, reason: string) {
    super(`${url}: ${reason}`);
    this.name = 'FetchError';
  }
}

export function nodeParts(node: string): string[] {
  return node.split('|').map((s) => s.trim()).filter(Boolean);
}

function fetchHttp(url: string, dest: string, known: Validators | undefined, limits: FetchLimits, redirects = 0): Promise<Downloaded> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const client = u.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'User-Agent': 'splitguard-ipdb-refresh', 'Accept-Encoding': 'gzip, identity' };
    if (known?.etag) headers['If-None-Match'] = known.etag;
    if (known?.lastModified) headers['If-Modified-Since'] = known.lastModified;
    let settled = false;
    // The body's file, once the answer is a 200: closed on failure too, or
    // every failed download would keep a descriptor (and the deleted file's
    // disk space) until the process exits.
    let out: WriteStream | null = null;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      clearTimeout(connect);
      req.destroy();
      out?.destroy();
      reject(new FetchError(url, reason));
    };
    const total = setTimeout(() => fail(`no complete answer within ${limits.totalMs} ms`), limits.totalMs);
    const connect = setTimeout(() => fail(`no connection within ${limits.connectMs} ms`), limits.connectMs);
    const req = client.get(u, { headers }, (res) => {
      clearTimeout(connect);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304 && res.headers.location) {
        res.resume();
        if (redirects >= 5) return fail('too many redirects');
        settled = true;
        clearTimeout(total);
        fetchHttp(new URL(res.headers.location, u).href, dest, known, limits, redirects + 1).then(resolve, reject);
        return;
      }
      const validators: Validators = {
        etag: res.headers.etag,
        lastModified: res.headers['last-modified'],
      };
      if (status === 304) {
        res.resume();
        settled = true;
        clearTimeout(total);
        resolve({ url, file: null, bytes: 0, validators: known ?? validators });
        return;
      }
      if (status !== 200) {
        res.resume();
        return fail(`HTTP ${status}`);
      }
      const declared = res.headers['content-length'] === undefined ? -1 : Number(res.headers['content-length']);
      if (declared > limits.maxBytes) {
        res.resume();
        return fail(`the body (${declared} bytes) is larger than the ${limits.maxBytes}-byte limit`);
      }
      out = createWriteStream(dest);
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) fail(`the body is larger than the ${limits.maxBytes}-byte limit`);
      });
      res.on('aborted', () => fail(`the connection closed after ${bytes} bytes`));
      res.on('error', (err) => fail(err.message));
      res.pipe(out);
      out.on('error', (err) => fail(`cannot write ${dest}: ${err.message}`));
      out.on('finish', () => {
        if (settled) return;
        if (!res.complete || (declared >= 0 && bytes !== declared)) {
          return fail(`truncated: received ${bytes} of ${declared >= 0 ? declared : 'unknown'} bytes`);
        }
        settled = true;
        clearTimeout(total);
        resolve({ url, file: dest, bytes, validators });
      });
    });
    // The connect timeout ends once the socket is connected (a kept-alive
    // socket already is); from then on the idle timeout covers a server that
    // accepts and never answers, or stops sending half-way.
    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => clearTimeout(connect));
      else clearTimeout(connect);
      socket.setTimeout(limits.idleMs, () => fail(`no data for ${limits.idleMs} ms`));
    });
    req.on('error', (err: NodeJS.ErrnoException) => fail(err.code ? `${err.code} (${err.message})` : err.message));
  });
}

async function fetchFile(url: string, dest: string, known: Validators | undefined): Promise<Downloaded> {
  const file = fileURLToPath(url);
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    throw new FetchError(url, (err as NodeJS.ErrnoException).code ?? 'cannot read');
  }
  const etag = `"${st.size}-${st.mtimeMs}"`;
  if (known?.etag === etag) return { url, file: null, bytes: 0, validators: known };
  await copyFile(file, dest);
  return { url, file: dest, bytes: st.size, validators: { etag } };
}

/**
 * Downloads every part of a node into `dir`. `known` holds the validators of
 * the last accepted download per URL. When some parts are unchanged and
 * others not, the unchanged ones are fetched again in full: a build needs
 * every part.
 */
export async function fetchNode(
  node: string,
  dir: string,
  known: Record<string, Validators>,
  limits: FetchLimits = DEFAULT_LIMITS,
): Promise<{ parts: Downloaded[]; unchanged: boolean }> {
  if (node === 'package:') {
    const source = embeddedSource();
    const etag = `"package ${source.name}"`;
    const unchanged = source.files.every((f) => known[f]?.etag === etag);
    return {
      unchanged,
      parts: source.files.map((f) => ({ url: f, file: unchanged ? null : f, bytes: 0, validators: { etag } })),
    };
  }
  const urls = nodeParts(node);
  const get = (url: string, i: number, validators?: Validators) => {
    const dest = path.join(dir, `part-${i}-${path.basename(new URL(url).pathname) || 'source'}`);
    return url.startsWith('file:') ? fetchFile(url, dest, validators) : fetchHttp(url, dest, validators, limits);
  };
  const parts = await Promise.all(urls.map((u, i) => get(u, i, known[u])));
  if (parts.every((p) => p.file === null)) return { parts, unchanged: true };
  for (let i = 0; i < parts.length; i++) if (parts[i].file === null) parts[i] = await get(urls[i], i);
  return { parts, unchanged: false };
}

/** A short name for a node in logs and status: its URLs without query strings. */
export function nodeName(node: string): string {
  if (node === 'package:') return `package ${embeddedSource().name}`;
  return nodeParts(node).map((u) => u.replace(/\?.*$/, '')).join(' | ');
}
