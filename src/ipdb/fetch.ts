// Downloading database sources. A *source* is one location: a single
// URL (a file with both families, e.g. iptoasn's combined TSV) or an IPv4
// and an IPv6 URL joined by "|". http:, https: and file: URLs; `package:` is
// the installed @ip-location-db/asn package.
//
// HTTP goes through undici, one Agent per source download: a connect timeout,
// an idle timeout (for the headers, then between body chunks) and a size cap
// that undici enforces as the body arrives. Here: up to 5 redirects, none
// from https to anything else (a plain leg would let anyone on its path
// supply the data), none to an internal address of another kind than the
// configured host's (redirectsAllowed below), the total timeout, the refusal of a declared
// Content-Length over the cap before any of the body is read, conditional
// requests (If-None-Match / If-Modified-Since from the validators of the last
// accepted download) so that an unchanged source costs one round trip, and
// the mapping of undici's errors onto the messages a refresh records. gzip
// bodies are written as they come; the parser detects and inflates them
// under its own size cap. A file: source is held to the same cap by its size.
import dns from 'node:dns';
import { createWriteStream, statSync } from 'node:fs';
import { copyFile, statfs } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { Dispatcher } from 'undici';
import { AppError, catalogue, FetchError, quoted } from '../errors.js';
import { type AddressKind, addressKind, kindName } from './address-kind.js';
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

/**
 * A source URL as logs, errors, status answers and the database's own
 * record show it: without credentials, query or fragment, where a mirror's
 * token travels. Every tenant reads the refresh status (GET /v1/ip/database).
 */
export function displayUrl(url: string): string {
  // As configured, less those parts (no URL parser's rewriting of the rest).
  return url.replace(/[?#].*$/s, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

/** A failed download of `url`, named as displayUrl shows it: its credentials and query never reach a message, a log or the status. */
const fetchFailed = (url: string, reason: string) => new FetchError(displayUrl(url), reason);

function sourceParts(location: string): string[] {
  return location.split('|').map((s) => s.trim()).filter(Boolean);
}

const MAX_REDIRECTS = 5;
/** The statuses followed as redirects (when they carry a Location). */
const REDIRECTS = new Set([300, 301, 302, 303, 307, 308]);

type Undici = typeof import('undici');

/** undici and the connections of one URL's download. */
interface Client {
  request: Undici['request'];
  /** The configured URL's connections (the source's other parts share them). */
  configured: Dispatcher;
  /** The connections of every step after a redirect: each only to an address `mayReach` takes, checked as it connects. */
  redirected: Dispatcher;
  /** Whether a redirect may lead to an address of this kind (redirectsAllowed). */
  mayReach(kind: AddressKind): boolean;
}

/**
 * Where a publisher's redirect may lead, checked on the address each
 * redirected step connects to: a public address, or one of the kinds the
 * configured URL's own host is (`home`: the literal's kind, or the kinds its
 * name resolved to when it was connected). So a feed on the internet cannot
 * send the refresh to 127.0.0.1, 10.0.0.0/8 or the cloud metadata address
 * 169.254.169.254 and have what answered there quoted in a status every
 * tenant reads (the hostile-publisher review of 2026-11-29), while an
 * operator's mirror on the LAN (and every test, whose publishers listen on
 * 127.0.0.1) still redirects within its own kind of network: a loopback
 * host to loopback, a private one to private, neither to link-local.
 */
function redirectsAllowed(home: () => readonly AddressKind[]): (kind: AddressKind) => boolean {
  return (kind) => kind === 'public' || home().includes(kind);
}

/** A redirected step's host name resolved to no address it may reach; `address` is the first it resolved to. */
/**
 * A request that failed after a redirect: its error's text may carry what the
 * publisher chose (the host name of an ENOTFOUND, the names of a certificate
 * that does not match), so fetchHttp quotes it whole, as tenants read it hidden.
 */
class AfterRedirect extends Error {
  constructor(
    readonly named: string,
    readonly failure: unknown,
  ) {
    super(named);
  }
}

class UnreachableAddress extends Error {
  constructor(
    readonly address: string,
    readonly kind: AddressKind,
  ) {
    super(`${address} is ${kindName(kind)}`);
  }
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect and tls.connect (undici passes its Agent's
 * `connect` options to them) that resolves as dns.lookup does, gives
 * `resolved` every address for the connection to go on, and answers with
 * those `keep` takes; none taken fails the connection with
 * UnreachableAddress before it is made. The address connected to is one of
 * those answered, so a name that resolves elsewhere a second time (DNS
 * rebinding) is checked on that answer. net.connect asks no lookup for an IP
 * literal: follow checks those itself.
 */
function lookupKeeping(keep: (kind: AddressKind) => boolean, resolved?: (hostname: string, kinds: AddressKind[]) => void) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const kinds = addresses.map((a) => addressKind(a.address) ?? 'reserved');
      resolved?.(hostname, kinds);
      const kept = addresses.filter((_, i) => keep(kinds[i]));
      if (kept.length === 0) return callback(new UnreachableAddress(addresses[0].address, kinds[0]), []);
      if (options.all) callback(null, kept);
      else callback(null, kept[0].address, kept[0].family);
    });
  };
}

/**
 * Downloads land in the data directory (<data>/ipdb/refresh-*), most often
 * on the store's file system, and a publisher chooses how much it sends: up
 * to the caps, slowly, a body could hold that file system full for minutes,
 * and every write of the store failed meanwhile (1,165 of 1,493 route
 * creations in the hostile-publisher review). So a download stops once its
 * file system would have less than a reserve free: a tenth of its size,
 * at least 32 MiB and at most 256 MiB, which is the room the store keeps to
 * grow. Checked before the body (against its declared length), then every
 * RESERVE_CHECK_BYTES of it (one statfs); and before a build, against the
 * largest candidate it may write (refresh.ts).
 */
const RESERVE_MIN = 32 * 2 ** 20;
const RESERVE_MAX = 256 * 2 ** 20;
const RESERVE_CHECK_BYTES = 2 * 2 ** 20;

/** Why `dir`'s file system cannot take `more` bytes beyond the reserve, or null. */
export async function spaceShort(dir: string, more: number): Promise<string | null> {
  const fs = await statfs(dir);
  const reserve = Math.min(RESERVE_MAX, Math.max(RESERVE_MIN, (fs.blocks * fs.bsize) / 10));
  const free = fs.bavail * fs.bsize;
  if (free - Math.max(0, more) >= reserve) return null;
  const mib = (n: number) => `${Math.floor(n / 2 ** 20)} MiB`;
  return `the data directory's file system would keep under ${mib(reserve)} free (${mib(free)} free${more > 0 ? `, up to ${mib(more)} to come` : ''}): stopped, leaving the store room to write`;
}

/** What a refresh records for an error of undici, node:net or node:fs; `bytes` is -1 before the body. */
function reason(err: unknown, dest: string, limits: FetchLimits, bytes: number): string {
  const { code, message, path: file } = err as NodeJS.ErrnoException;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection within ${limits.connectMs} ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `no data for ${limits.idleMs} ms`;
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return `the body is larger than the ${limits.maxBytes}-byte limit`;
    case 'UND_ERR_SOCKET':
      return bytes < 0 ? 'the connection closed before an answer' : `the connection closed after ${bytes} bytes`;
  }
  if (file === dest) return `cannot write ${dest}: ${message}`;
  return code ? `${code} (${message})` : message;
}

const header = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/** A URL's host as an address is written without brackets ([::1] is ::1); a name as it is. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/s, '$1');

/** Why a redirect to an internal address is not followed (redirectsAllowed). */
const NOT_FOLLOWED = 'not followed, as only a configured host of that kind may redirect there';

/**
 * Requests `url`, following redirects (the same GET and headers, validators
 * included: they belong to the configured URL) up to MAX_REDIRECTS. Each step
 * is checked before it is requested: a step from https to any other scheme
 * is refused, as is a URL already visited (a loop), and an IP literal that
 * `client.mayReach` does not take; a host name is checked on what it
 * resolves to as the step connects (lookupKeeping). Resolves with the answer
 * that is not a redirect; the bodies of the redirects are dumped. A URL a
 * redirect named is the publisher's text, quoted (errors.ts quoted): tenants
 * read the failure without it.
 */
async function follow(url: string, headers: Record<string, string>, client: Client, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  const visited = new Set<string>([new URL(url).href]);
  let at = url;
  /** How a failure names the redirect that led to `at`. */
  let named = '';
  for (let step = 1; ; step++) {
    const dispatcher = step === 1 ? client.configured : client.redirected;
    const res = await client.request(at, { dispatcher, headers, signal }).catch((err: unknown) => {
      if (err instanceof UnreachableAddress) throw fetchFailed(url, `${named}, whose name resolves to ${quoted(err.address, 60)}, ${kindName(err.kind)}: ${NOT_FOLLOWED}`);
      throw step > 1 ? new AfterRedirect(named, err) : err;
    });
    const location = header(res.headers.location);
    if (!REDIRECTS.has(res.statusCode) || location === undefined) return res;
    void res.body.dump();
    if (step > MAX_REDIRECTS) throw fetchFailed(url, 'too many redirects');
    const from = step === 1 ? displayUrl(url) : quoted(displayUrl(at), 200);
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      throw fetchFailed(url, `redirect ${step} (from ${from}) is to an invalid URL`);
    }
    const to = quoted(displayUrl(next.href), 200);
    named = `redirect ${step} (from ${from}) is to ${to}`;
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw fetchFailed(url, `redirect ${step} (from ${from}) is to a ${next.protocol} URL: ${to}`);
    if (new URL(at).protocol === 'https:' && next.protocol !== 'https:') throw fetchFailed(url, `redirect ${step} leaves https: ${from} to ${to}`);
    if (visited.has(next.href)) throw fetchFailed(url, 'too many redirects (a loop)');
    // net.connect asks no lookup for an IP literal: its kind is checked here, before any connection.
    const literal = addressKind(hostOf(next));
    if (literal !== null && !client.mayReach(literal)) throw fetchFailed(url, `${named}, ${kindName(literal)}: ${NOT_FOLLOWED}`);
    visited.add(next.href);
    at = next.href;
  }
}

async function fetchHttp(url: string, dest: string, known: Validators | undefined, limits: FetchLimits, client: Client, stop?: AbortSignal): Promise<Downloaded> {
  const headers: Record<string, string> = { 'User-Agent': 'splitguard-ipdb-refresh', 'Accept-Encoding': 'gzip, identity' };
  if (known?.etag) headers['If-None-Match'] = known.etag;
  if (known?.lastModified) headers['If-Modified-Since'] = known.lastModified;
  const conditional = 'If-None-Match' in headers || 'If-Modified-Since' in headers;
  const total = new AbortController();
  const timer = setTimeout(() => total.abort(fetchFailed(url, `no complete answer within ${limits.totalMs} ms`)), limits.totalMs);
  let bytes = -1;
  try {
    const res = await follow(url, headers, client, stop ? AbortSignal.any([total.signal, stop]) : total.signal);
    const status = res.statusCode;
    const validators: Validators = { etag: header(res.headers.etag), lastModified: header(res.headers['last-modified']) };
    // Not awaited: undici's dump() reads a small body to its end, closes a
    // larger one, and never rejects. Any error is reported now.
    if (status !== 200) void res.body.dump();
    // 304 says "unchanged since the validator you sent"; without one it says
    // nothing about any body, and taking it for unchanged would keep stale
    // data (or hand a build a part with no file).
    if (status === 304 && !conditional) throw fetchFailed(url, 'HTTP 304 to a request without a validator');
    if (status === 304) return { url, file: null, bytes: 0, validators: known ?? validators };
    if (status !== 200) throw fetchFailed(url, `HTTP ${status}`);
    const length = header(res.headers['content-length']);
    const declared = length === undefined ? -1 : Number(length);
    if (declared > limits.maxBytes) {
      void res.body.dump();
      throw fetchFailed(url, `the body (${declared} bytes) is larger than the ${limits.maxBytes}-byte limit`);
    }
    bytes = 0;
    let checkedAt = 0;
    const counted = async function* (body: AsyncIterable<Buffer>) {
      for await (const chunk of body) {
        bytes += chunk.length;
        if (bytes - checkedAt >= RESERVE_CHECK_BYTES) {
          checkedAt = bytes;
          const short = await spaceShort(path.dirname(dest), 0);
          if (short) throw fetchFailed(url, short);
        }
        yield chunk;
      }
    };
    const short = await spaceShort(path.dirname(dest), declared);
    if (short) {
      void res.body.dump();
      throw fetchFailed(url, short);
    }
    // On any failure pipeline destroys the file's stream too: a failed
    // download keeps no descriptor (nor the deleted file's disk space).
    await pipeline(res.body, counted, createWriteStream(dest));
    if (declared >= 0 && bytes !== declared) throw fetchFailed(url, `truncated: received ${bytes} of ${declared} bytes`);
    return { url, file: dest, bytes, validators };
  } catch (err) {
    if (stop?.aborted) throw fetchFailed(url, catalogue.stopped.message(''));
    if (err instanceof AfterRedirect) throw fetchFailed(url, `${err.named}: ${quoted(reason(err.failure, dest, limits, bytes), 200)}`);
    throw err instanceof FetchError ? err : fetchFailed(url, reason(err, dest, limits, bytes));
  } finally {
    clearTimeout(timer);
  }
}

async function fetchFile(url: string, dest: string, known: Validators | undefined, limits: FetchLimits): Promise<Downloaded> {
  const file = fileURLToPath(url);
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    throw fetchFailed(url, (err as NodeJS.ErrnoException).code ?? 'cannot read');
  }
  // A FIFO would block the copy (and the refresh) for good; a directory has nothing to copy.
  if (!st.isFile()) throw fetchFailed(url, 'not a regular file');
  // The download's cap, before the copy: a file over it (a sparse one costs
  // its writer nothing) would fill the data directory's file system first.
  if (st.size > limits.maxBytes) throw fetchFailed(url, `the file (${st.size} bytes) is larger than the ${limits.maxBytes}-byte limit`);
  const etag = `"${st.size}-${st.mtimeMs}"`;
  if (known?.etag === etag) return { url, file: null, bytes: 0, validators: known };
  const short = await spaceShort(path.dirname(dest), st.size);
  if (short) throw fetchFailed(url, short);
  await copyFile(file, dest);
  return { url, file: dest, bytes: st.size, validators: { etag } };
}

/**
 * Downloads every part of a source into `dir`. `known` holds the validators of
 * the last accepted download per URL. When some parts are unchanged and
 * others not, the unchanged ones are fetched again in full: a build needs
 * every part. Aborting `stop` ends the downloads at once (a slow publisher
 * would otherwise hold a shutdown for up to totalMs a source).
 */
export async function fetchSource(
  location: string,
  dir: string,
  known: Record<string, Validators>,
  limits: FetchLimits = DEFAULT_LIMITS,
  stop?: AbortSignal,
): Promise<{ parts: Downloaded[]; unchanged: boolean }> {
  if (location === 'package:') {
    const source = embeddedSource();
    const etag = `"package ${source.name}"`;
    const unchanged = source.files.every((f) => known[f]?.etag === etag);
    return {
      unchanged,
      parts: source.files.map((f) => ({ url: f, file: unchanged ? null : f, bytes: 0, validators: { etag } })),
    };
  }
  const urls = sourceParts(location);
  // undici takes 0.15 s to load: the first download loads it, not every
  // start, server thread and CLI command that imports this module.
  const { Agent, request } = await import('undici');
  // undici runs timeouts over 1 s on a half-second tick: the idle timeout
  // ends within half a second of its value.
  const agents: InstanceType<Undici['Agent']>[] = [];
  const agent = (lookup: ReturnType<typeof lookupKeeping>) => {
    const made = new Agent({
      connectTimeout: limits.connectMs,
      headersTimeout: limits.idleMs,
      bodyTimeout: limits.idleMs,
      maxResponseSize: limits.maxBytes,
      connect: { lookup },
    });
    agents.push(made);
    return made;
  };
  // The kinds of address each configured host name resolved to, as its connection was made.
  const resolved = new Map<string, AddressKind[]>();
  const configured = agent(lookupKeeping(() => true, (hostname, kinds) => resolved.set(hostname, kinds)));
  const started: Promise<Downloaded>[] = [];
  const get = (url: string, i: number, validators?: Validators) => {
    const dest = path.join(dir, `part-${i}-${path.basename(new URL(url).pathname) || 'source'}`);
    let download: Promise<Downloaded>;
    if (url.startsWith('file:')) {
      download = fetchFile(url, dest, validators, limits);
    } else {
      const host = hostOf(new URL(url));
      const literal = addressKind(host);
      const mayReach = redirectsAllowed(() => (literal !== null ? [literal] : (resolved.get(host) ?? [])));
      // Made here, before any await: the finally below closes every agent made.
      download = fetchHttp(url, dest, validators, limits, { request, configured, redirected: agent(lookupKeeping(mayReach)), mayReach }, stop);
    }
    started.push(download);
    return download;
  };
  try {
    const parts = await Promise.all(urls.map((u, i) => get(u, i, known[u])));
    if (parts.every((p) => p.file === null)) return { parts, unchanged: true };
    for (let i = 0; i < parts.length; i++) if (parts[i].file === null) parts[i] = await get(urls[i], i);
    return { parts, unchanged: false };
  } finally {
    // The first failed part fails the source: the others are cut short, and
    // their files closed, before the caller removes the directory. Then no
    // socket (a kept-alive one included) outlives the download.
    await Promise.all(agents.map((a) => a.destroy()));
    await Promise.allSettled(started);
  }
}

/** A source that failed in a failover (inOrder): its name, what it threw, and how long it took. */
export interface SourceFailure {
  source: string;
  error: unknown;
  ms: number;
}

/**
 * Failover across publishers, for the ASN data and for each feed: tries the
 * locations in order until `attempt` resolves, and returns its answer with
 * the source and how long it took (null when every one failed). Each
 * failure goes to `failed` as it happens. A stop (`stop` aborted) ends the
 * failover with `stopped`, before an attempt or in place of the failure it
 * caused.
 */
export async function inOrder<T>(
  locations: readonly string[],
  attempt: (location: string, source: string) => Promise<T>,
  failed: (failure: SourceFailure) => void,
  stop?: AbortSignal,
): Promise<{ value: T; source: string; ms: number } | null> {
  for (const location of locations) {
    if (stop?.aborted) throw new AppError('stopped');
    const t0 = performance.now();
    const source = sourceName(location);
    try {
      const value = await attempt(location, source);
      return { value, source, ms: Math.round(performance.now() - t0) };
    } catch (error) {
      if (stop?.aborted) throw new AppError('stopped');
      failed({ source, error, ms: Math.round(performance.now() - t0) });
    }
  }
  return null;
}

/** A short name for a source in logs and status: its URLs as displayUrl shows them. */
export function sourceName(location: string): string {
  if (location === 'package:') return `package ${embeddedSource().name}`;
  return sourceParts(location).map(displayUrl).join(' | ');
}
