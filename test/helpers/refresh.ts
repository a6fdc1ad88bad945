// Helpers for database refresh tests: the status of GET /v1/ip/database, a
// trigger by a fresh account (the API allows one trigger an hour per
// account), waiting for a refresh to finish, and the assertions every
// failure test shares: the source's error is recorded and named, and the
// database that was serving still serves.
import { afterAll, beforeAll, expect } from 'vitest';
import { call, type Response } from './client.js';
import { NO_RATE_LIMIT, waitUntil } from './routes.js';
import { runCliJson } from './cli.js';
import { type Env, startServer, type TestServer } from './server.js';
import { type SourceServer, startSourceServer } from './sources.js';

/**
 * The setup most refresh tests share: a loopback source server, and a
 * server (no rate limit) whose refresh source is its `valid` location; started
 * before the file's tests, stopped after them. The fields are set once the
 * file's beforeAll hooks have run (this one first).
 */
export function serverWithValidSource(options: { threads?: number; env?: Env } = {}): { server: TestServer; sources: SourceServer } {
  const ctx = {} as { server: TestServer; sources: SourceServer };
  beforeAll(async () => {
    ctx.sources = await startSourceServer();
    ctx.server = await startServer({
      threads: options.threads,
      env: { ...NO_RATE_LIMIT, ...options.env, SPLITGUARD_IPDB_SOURCES: ctx.sources.location('valid') },
    });
  });
  afterAll(async () => {
    await ctx.server?.close();
    await ctx.sources?.close();
  });
  return ctx;
}

export type { RefreshRecord } from '../../src/ipdb/refresh-state.js';
import type { RefreshRecord } from '../../src/ipdb/refresh-state.js';

export interface DatabaseStatus {
  available: boolean;
  version: string | null;
  built_at: string | null;
  source: string | null;
  ranges: { v4: number; v6: number } | null;
  records: number | null;
  size: number | null;
  checksum: string | null;
  refresh_running: boolean;
  last_refresh: RefreshRecord | null;
  next_refresh_at: string | null;
  feeds: { name: string; label: string; version: string | null; fetched_at: string | null; ranges: number | null; last_attempt_at: string | null; last_outcome: string | null; last_error: string | null; next_refresh_at: string | null }[];
}

/** The fields that identify the database being served. */
export function identity(s: DatabaseStatus): Pick<DatabaseStatus, 'version' | 'built_at' | 'checksum' | 'ranges' | 'size'> {
  return { version: s.version, built_at: s.built_at, checksum: s.checksum, ranges: s.ranges, size: s.size };
}

/** GET /v1/ip/database on a thread, with the server's (admin) key or another account's `key` (200 expected). */
export async function databaseStatus(server: TestServer, thread = 0, key = server.apiKey): Promise<DatabaseStatus> {
  const r = await call(server.ports[thread], server.ca, 'GET', '/v1/ip/database', key).catch((err: Error) => {
    throw new Error(`GET /v1/ip/database on thread ${thread} failed at ${new Date().toISOString()}: ${err.message}`);
  });
  if (r.status !== 200) throw new Error(`GET /v1/ip/database answered ${r.status}: ${r.body}`);
  return r.json as DatabaseStatus;
}

/** A new account's API key (splitguard account create, on the server's data directory). */
export async function newAccount(server: TestServer, name = 'refresh test'): Promise<{ account_id: number; api_key: string }> {
  return runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', name], server.dataDir);
}

export function triggerRefresh(server: TestServer, key: string, thread = 0): Promise<Response> {
  return call(server.ports[thread], server.ca, 'POST', '/v1/ip/update', key).catch((err: Error) => {
    throw new Error(`POST /v1/ip/update on thread ${thread} failed at ${new Date().toISOString()}: ${err.message}`);
  });
}

/**
 * Waits until a refresh other than `previous` (a last_refresh.finished_at, or
 * null) has finished and none is running; returns the status then.
 */
export async function refreshFinished(server: TestServer, previous: string | null, timeoutMs = 60_000): Promise<DatabaseStatus> {
  const { value } = await waitUntil(
    () => databaseStatus(server),
    (s) => !s.refresh_running && s.last_refresh !== null && s.last_refresh.finished_at !== previous,
    timeoutMs,
    100,
  );
  return value;
}

/** Triggers a refresh with `key` (202 started expected) and waits for its outcome. */
export async function refreshNow(server: TestServer, key: string): Promise<DatabaseStatus> {
  const before = await databaseStatus(server);
  const r = await triggerRefresh(server, key);
  expect(r.status, r.body).toBe(202);
  expect(r.json.status).toBe('started');
  return refreshFinished(server, before.last_refresh?.finished_at ?? null);
}

/** The name the refresh gives a source location: its URLs without query strings, joined by " | ". */
export function sourceName(location: string): string {
  return location
    .split('|')
    .map((u) => u.replace(/\?.*$/, ''))
    .join(' | ');
}

/** The check API's answer for an address (200 expected). */
export async function check(server: TestServer, ip: string, thread = 0): Promise<Record<string, any>> {
  const r = await call(server.ports[thread], server.ca, 'GET', `/v1/ip/check?ip=${encodeURIComponent(ip)}`, server.apiKey);
  if (r.status !== 200) throw new Error(`GET /v1/ip/check?ip=${ip} answered ${r.status}: ${r.body}`);
  return r.json as Record<string, any>;
}

/** The value of one Prometheus sample line (0 when absent). */
export async function metric(server: TestServer, sample: string): Promise<number> {
  const r = await call(server.ports[0], server.ca, 'GET', '/metrics');
  if (r.status !== 200) throw new Error(`GET /metrics answered ${r.status}`);
  const line = r.body.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

/**
 * The contract for a failing source: a triggered refresh fails, the source's
 * outcome names the cause, the failure is counted in /metrics, and the
 * database that served before serves on, unchanged, on every thread.
 */
export async function expectFailedRefreshKeepsServing(server: TestServer, location: string, cause: RegExp): Promise<RefreshRecord> {
  const before = await databaseStatus(server);
  expect(before.available).toBe(true);
  const failedBefore = await metric(server, 'splitguard_ipdb_refresh_total{outcome="failed"}');

  const after = await refreshNow(server, server.apiKey);
  const record = after.last_refresh!;
  expect(record).toMatchObject({ trigger: `api (account ${server.accountId})`, outcome: 'failed', source: null, version: null });
  expect(record.error).toMatch(/every source failed/);
  expect(record.nodes).toHaveLength(1);
  expect(record.nodes[0]).toMatchObject({ source: sourceName(location), outcome: 'failed' });
  expect(record.nodes[0].error).toMatch(cause);

  expect(identity(after)).toEqual(identity(before));
  for (let thread = 0; thread < server.ports.length; thread++) {
    const google = await check(server, '8.8.8.8', thread);
    expect(google).toMatchObject({ found: true, asn: 15169, intercepted: true, database: { version: before.version, built_at: before.built_at } });
  }
  expect(await metric(server, 'splitguard_ipdb_refresh_total{outcome="failed"}')).toBe(failedBefore + 1);
  return record;
}
