// Configuration: read from the environment once, validated, frozen. Every
// error names the variable and says what was expected.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseCidrText, parseIp } from './ipdb/address.js';
import { readRegularFile } from './regular-file.js';
import { FEEDS, type FeedDefinition } from './ipdb/feeds/registry.js';
import { ConfigError } from './errors.js';

/** A CIDR block as 16 bytes (IPv4 mapped) and a prefix length over those 128 bits. */
export interface Cidr {
  bytes: Uint8Array;
  prefix: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  shortBase: string;
  tlsCert: string | null;
  tlsKey: string | null;
  threads: number;
  ipdbSources: string[] | null;
  ipdbRefreshHours: number;
  /** How long a database source may stay silent (connecting, answering, between reads) before that source fails. */
  ipdbFetchTimeoutMs: number;
  /** The database build process's heap limit, in MB (SPLITGUARD_BUILD_MEMORY_MB). */
  buildMemoryMb: number;
  /** The feeds folded into the database (SPLITGUARD_FEEDS), in the registry's priority order. */
  feeds: readonly FeedDefinition[];
  /**
   * Where feeds are fetched from (SPLITGUARD_FEED_SOURCES): the publishers,
   * `off` (never: the shipped snapshots stay), or per feed a list of sources.
   */
  feedSources: 'publishers' | 'off' | ReadonlyMap<string, readonly string[]>;
  trustProxy: Cidr[];
  /** Addresses allowed to read /metrics; empty means loopback only. */
  metricsFrom: Cidr[];
  rateLimitPerMin: number;
  /** Console sessions end after this many minutes without a request. */
  sessionIdleMinutes: number;
  /** Connections one remote address may hold (trusted proxies exempt); 0 = no cap. */
  maxConnectionsPerAddress: number;
  /** Connections the process may hold; 0 = no cap, null = 80% of the open-file limit (decided at start). */
  maxConnections: number | null;
  /** A connection whose client has acknowledged nothing for this long while data waits for it is closed; 0 = never. */
  stallSeconds: number;
  /**
   * Cluster mode (contract §9, docs/cluster.md): PostgreSQL is the source of
   * truth and the data directory's LMDB the node's replica. Null on a single
   * node. Set together with redisUrl.
   */
  databaseUrl: string | null;
  /**
   * The cluster's Redis: the account rate limit and the failure throttles
   * are cluster-wide through it (limits/redis-limits.ts); null on a single
   * node, whose threads count together in shared memory.
   */
  redisUrl: string | null;
  /** How long an API request may wait on Redis before this node decides alone (SPLITGUARD_REDIS_TIMEOUT_MS). */
  redisTimeoutMs: number;
  /** This node's name in logs, metrics and `cluster status` (default: the host name). */
  nodeName: string;
  /** Cluster mode: the change log's bound in MB (SPLITGUARD_CHANGE_LOG_MB; pg/node.ts). */
  changeLogMb: number;
  /**
   * Days a route's per-day unique-visitor sketches are kept (SPLITGUARD_SKETCH_DAYS;
   * store/experiments-store.ts): older ones are deleted, the lifetime sketch stays.
   */
  sketchDays: number;
  /**
   * Conversions one account may store (SPLITGUARD_CONVERSION_QUOTA): a new
   * one past it is 403 quota_exceeded, a duplicate is still answered; a
   * route's deletion gives its conversions back. 0 = no limit.
   */
  conversionQuota: number;
}

/**
 * Conversions an account stores at most by default: about 1.45 GB of LMDB
 * (145 bytes each), some 2.5 hours of the most one tenant can send within
 * the default API and console budgets (66,000 a minute).
 */
const DEFAULT_CONVERSION_QUOTA = 10_000_000;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return Number(raw);
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw.trim()) || !(n > 0) || n > max) {
    throw new ConfigError(name, `a positive number up to ${max}`, raw);
  }
  return n;
}

function origin(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'an absolute http(s) URL such as https://links.example.com', raw);
  }
  // A bare '?' or '#' leaves search and hash empty: the raw text is checked for them.
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || /[?#]/.test(raw) || url.pathname !== '/') {
    throw new ConfigError(name, 'an http(s) origin without credentials, path, query or fragment', raw);
  }
  return url.href.replace(/\/+$/, '');
}

export function parseCidr(text: string): Cidr | null {
  const bytes = new Uint8Array(16);
  const c = parseCidrText(text, bytes);
  if (c === null) return null;
  return { bytes, prefix: c.family === 4 ? c.prefix + 96 : c.prefix };
}

function cidrs(env: NodeJS.ProcessEnv, name: string): Cidr[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const c = parseCidr(part.trim());
    if (!c) throw new ConfigError(name, 'a comma-separated list of IP addresses or CIDR blocks', part.trim());
    return c;
  });
}

function urls(env: NodeJS.ProcessEnv, name: string): string[] | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  return raw.split(',').map((part) => {
    const text = part.trim();
    if (text === 'package:') return text;
    for (const alternative of text.split('|')) {
      let ok = false;
      try {
        ok = ['http:', 'https:', 'file:'].includes(new URL(alternative).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new ConfigError(name, 'a comma-separated list of http:, https: or file: URLs (IPv4|IPv6 pairs allowed) or package:', alternative);
    }
    return text;
  });
}

/** SPLITGUARD_FEEDS: `all` (default), `none`, or a comma-separated list of feed names. */
function feedList(env: NodeJS.ProcessEnv, name: string): readonly FeedDefinition[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '' || raw === 'all') return FEEDS;
  if (raw === 'none') return [];
  const names = raw.split(',').map((n) => n.trim());
  for (const n of names) {
    if (!FEEDS.some((f) => f.name === n)) throw new ConfigError(name, `all, none, or a comma-separated list of feed names (${FEEDS.map((f) => f.name).join(', ')})`, n);
  }
  return FEEDS.filter((f) => names.includes(f.name));
}

/**
 * SPLITGUARD_FEED_SOURCES: unset for the publishers, `off` to fetch nothing,
 * or `name=url,url;name=url` to fetch named feeds elsewhere (a mirror, a
 * test server); a source is a URL or URLs joined by "|".
 */
function feedSources(env: NodeJS.ProcessEnv, name: string): Config['feedSources'] {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return 'publishers';
  if (raw === 'off') return 'off';
  const out = new Map<string, string[]>();
  for (const entry of raw.split(';').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const feed = eq < 0 ? '' : entry.slice(0, eq).trim();
    if (!FEEDS.some((f) => f.name === feed)) throw new ConfigError(name, 'off, or name=url[,url...] entries joined by ";" naming known feeds', entry);
    const sources = entry.slice(eq + 1).split(',').map((n) => n.trim()).filter(Boolean);
    for (const url of sources.flatMap((n) => n.split('|'))) {
      let ok = false;
      try {
        ok = ['http:', 'https:', 'file:'].includes(new URL(url).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new ConfigError(name, `http:, https: or file: URLs for feed ${feed}`, url);
    }
    if (out.has(feed)) throw new ConfigError(name, `each feed named once (${feed} is named twice)`, entry);
    out.set(feed, sources);
  }
  return out;
}

/** A connection URL of one of `schemes` (e.g. postgres:, postgresql:), with a host. */
function serviceUrl(env: NodeJS.ProcessEnv, name: string, schemes: readonly string[], example: string): string | null {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL such as ${example}`, redact(raw));
  }
  if (!schemes.includes(url.protocol) || url.hostname === '') throw new ConfigError(name, `a ${schemes.join(' or ')}// URL with a host, such as ${example}`, redact(raw));
  return raw;
}

/**
 * SPLITGUARD_REDIS_URL: redis://[user:password@]host[:port][/db] or the same
 * with rediss:// (TLS), as ioredis reads it.
 */
function redisUrlOf(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const expected = 'a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0';
  // The value may carry a password: the message shows it masked.
  // Up to the last '@': a password may hold a '/' or an '@' (then the URL is invalid, and shown).
  const shown = raw.replace(/\/\/.*@/, '//***@');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(name, expected, shown);
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '' || url.search || url.hash) {
    throw new ConfigError(name, expected, shown);
  }
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/[0-9]{1,2}$/.test(url.pathname)) {
    throw new ConfigError(name, `${expected} (the path, if any, a database number)`, shown);
  }
  return url.href;
}

/** A URL as it may appear in a message: without its password (up to the last '@': it may hold a '/' or an '@'). */
function redact(raw: string): string {
  return raw.replace(/^([a-z]+:\/\/[^:/@]*):.*@/i, '$1:***@');
}

/** SPLITGUARD_NODE_NAME: 1-64 characters of [A-Za-z0-9._-]; default the host name. */
function nodeName(env: NodeJS.ProcessEnv, name: string): string {
  const raw = (env[name] ?? '').trim();
  const value = raw === '' ? os.hostname() : raw;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(value)) throw new ConfigError(name, '1 to 64 characters of letters, digits, ".", "_" and "-"', value);
  return value;
}

function file(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const resolved = path.resolve(raw);
  if (!existsSync(resolved)) throw new ConfigError(name, 'the path of an existing PEM file', raw);
  return resolved;
}

/**
 * The configured certificate and key must parse and belong together: found
 * here, before anything is written, rather than after the first start has
 * bootstrapped the data directory.
 */
function checkTlsPair(env: NodeJS.ProcessEnv, certFile: string, keyFile: string): void {
  let cert: X509Certificate;
  let key: KeyObject;
  try {
    cert = new X509Certificate(readRegularFile(certFile));
  } catch {
    throw new ConfigError('SPLITGUARD_TLS_CERT', 'a readable PEM certificate file', env.SPLITGUARD_TLS_CERT ?? '');
  }
  try {
    key = createPrivateKey(readRegularFile(keyFile));
  } catch {
    throw new ConfigError('SPLITGUARD_TLS_KEY', 'a readable, unencrypted PEM private key file', env.SPLITGUARD_TLS_KEY ?? '');
  }
  if (!cert.checkPrivateKey(key)) throw new ConfigError('SPLITGUARD_TLS_KEY', 'the private key of SPLITGUARD_TLS_CERT', env.SPLITGUARD_TLS_KEY ?? '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8443, 0, 65535);
  const host = env.HOST === undefined || env.HOST === '' ? '0.0.0.0' : env.HOST;
  const hostBytes = new Uint8Array(16);
  if (host !== 'localhost' && parseIp(host, hostBytes) === 0) throw new ConfigError('HOST', 'an IP address to listen on', host);
  const baseUrl = origin(env, 'SPLITGUARD_BASE_URL', `https://localhost:${port}`);
  const tlsCert = file(env, 'SPLITGUARD_TLS_CERT');
  const tlsKey = file(env, 'SPLITGUARD_TLS_KEY');
  if ((tlsCert === null) !== (tlsKey === null)) {
    const missing = tlsCert === null ? 'SPLITGUARD_TLS_CERT' : 'SPLITGUARD_TLS_KEY';
    throw new ConfigError(missing, 'set together with its pair (certificate and key)', '');
  }
  if (tlsCert !== null && tlsKey !== null) checkTlsPair(env, tlsCert, tlsKey);
  // Unset (-1 here): the default depends on the open-file limit, known at start.
  const maxConnections = integer(env, 'SPLITGUARD_MAX_CONNECTIONS', -1, 0, 10_000_000);
  const databaseUrl = serviceUrl(env, 'SPLITGUARD_DATABASE_URL', ['postgres:', 'postgresql:'], 'postgres://splitguard@db.example.com/splitguard');
  const redisUrl = redisUrlOf(env, 'SPLITGUARD_REDIS_URL');
  // Cluster mode needs both (contract §9): one alone is a half-configured cluster.
  if ((databaseUrl === null) !== (redisUrl === null)) {
    const [missing, other] = databaseUrl === null ? ['SPLITGUARD_DATABASE_URL', 'SPLITGUARD_REDIS_URL'] : ['SPLITGUARD_REDIS_URL', 'SPLITGUARD_DATABASE_URL'];
    throw new ConfigError(missing, `set together with ${other} (cluster mode needs both)`, '');
  }
  return Object.freeze({
    port,
    host,
    dataDir: path.resolve(env.SPLITGUARD_DATA_DIR || './data'),
    baseUrl,
    shortBase: origin(env, 'SPLITGUARD_SHORT_BASE', baseUrl),
    tlsCert,
    tlsKey,
    threads: integer(env, 'SPLITGUARD_THREADS', os.availableParallelism(), 1, 256),
    ipdbSources: urls(env, 'SPLITGUARD_IPDB_SOURCES'),
    ipdbRefreshHours: positiveNumber(env, 'SPLITGUARD_IPDB_REFRESH_HOURS', 24, 24 * 365),
    ipdbFetchTimeoutMs: integer(env, 'SPLITGUARD_IPDB_FETCH_TIMEOUT_MS', 30_000, 100, 3_600_000),
    buildMemoryMb: integer(env, 'SPLITGUARD_BUILD_MEMORY_MB', 2048, 64, 65_536),
    feeds: feedList(env, 'SPLITGUARD_FEEDS'),
    feedSources: feedSources(env, 'SPLITGUARD_FEED_SOURCES'),
    trustProxy: cidrs(env, 'SPLITGUARD_TRUST_PROXY'),
    metricsFrom: cidrs(env, 'SPLITGUARD_METRICS_FROM'),
    rateLimitPerMin: integer(env, 'SPLITGUARD_RATE_LIMIT_PER_MIN', 60, 1, 10_000_000),
    sessionIdleMinutes: positiveNumber(env, 'SPLITGUARD_SESSION_IDLE_MINUTES', 30, 720),
    maxConnectionsPerAddress: integer(env, 'SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 10_000_000),
    maxConnections: maxConnections === -1 ? null : maxConnections,
    stallSeconds: integer(env, 'SPLITGUARD_STALL_SECONDS', 10, 0, 3600),
    databaseUrl,
    redisUrl,
    nodeName: nodeName(env, 'SPLITGUARD_NODE_NAME'),
    changeLogMb: integer(env, 'SPLITGUARD_CHANGE_LOG_MB', 256, 1, 65_536),
    // At least 28: the report's lifetime sample-ratio check counts up to the
    // last 28 days with visitors (SRM_DAYS, experiments/report.ts), the 7-day
    // window among them; at most ten years.
    sketchDays: integer(env, 'SPLITGUARD_SKETCH_DAYS', 90, 28, 3650),
    redisTimeoutMs: integer(env, 'SPLITGUARD_REDIS_TIMEOUT_MS', 50, 1, 10_000),
    conversionQuota: integer(env, 'SPLITGUARD_CONVERSION_QUOTA', DEFAULT_CONVERSION_QUOTA, 0, 1_000_000_000_000),
  });
}
