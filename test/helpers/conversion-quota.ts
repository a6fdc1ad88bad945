// For the tests of the conversion quota (SPLITGUARD_CONVERSION_QUOTA): click
// ids minted by real visits, and what a running single node's store holds,
// read by a separate read-only reader of its LMDB.
import path from 'node:path';
import { open } from 'lmdb';
import { expect } from 'vitest';
import { api, type Endpoint, type RedirectClient, visitorId } from './routes.js';

/** A new two-variant route that appends click ids, intercepting nobody. */
export async function clickIdRoute(server: Endpoint, name = 'quota'): Promise<{ id: number; code: string }> {
  const r = await api(server, 'POST', '/v1/routes', {
    name, variants: [{ url: 'https://a.example.com/', weight: 1 }, { url: 'https://b.example.com/', weight: 1 }], append_click_id: true, intercept_level: 'off',
  });
  expect(r.status, r.body).toBe(201);
  return r.json;
}

/** `n` click ids of the route, one new visitor each. */
export async function mintClickIds(client: RedirectClient, code: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const v = await client.visit(code, { visitor: visitorId() });
    expect(v.status).toBe(302);
    ids.push(/sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1]);
  }
  return ids;
}

/** The conversions the store holds (every route's) and the accounts' counts of them (meta `conversions:account:<id>`). */
export function storedConversions(dataDir: string): { rows: number; counted: Record<string, number> } {
  const env = open({ path: path.join(dataDir, 'db'), maxDbs: 32, readOnly: true });
  try {
    const rows = env.openDB({ name: 'conversions' }).getKeysCount();
    const counted: Record<string, number> = {};
    for (const { key, value } of env.openDB({ name: 'meta' }).getRange({ start: 'conversions:account:', end: 'conversions:account;' })) {
      counted[String(key).slice('conversions:account:'.length)] = value as number;
    }
    return { rows, counted };
  } finally {
    env.close();
  }
}

/**
 * Request bodies for `pairs` (conversion bodies) as a client racing a quota
 * sends them: every `every`-th request a batch of `size`, the others one
 * conversion each, interleaved, each conversion sent once.
 */
export function interleavedBatches(pairs: readonly unknown[], every: number, size: number): unknown[] {
  const requests: unknown[] = [];
  for (let at = 0; at < pairs.length; ) {
    if (requests.length % every === 0) {
      requests.push({ conversions: pairs.slice(at, at + size) });
      at += size;
    } else requests.push(pairs[at++]);
  }
  return requests;
}
