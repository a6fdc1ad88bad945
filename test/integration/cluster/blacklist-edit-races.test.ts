// Cluster mode, two nodes: blacklist edits raced through both nodes resolve
// in PostgreSQL as some order of the two (one statement reads and writes the
// row), as on a single node (quality/blacklist-edit-races.test.ts): a DELETE
// answered 204 stays deleted, a PUT without a note keeps the other's note,
// and a built-in entry's first change (the row made from the shipped entry)
// keeps the note too.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';

const ROUNDS = 10;
/** A built-in entry (AS15169, Google, level low). */
const BUILT_IN = 15169;
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

const admin = (node: number, method: string, path: string, body?: unknown) => api(cluster.node(node), method, `/v1/admin/blacklist${path}`, body);
async function stored(asn: number): Promise<{ enabled: boolean; note: string | null } | undefined> {
  const res = await admin(0, 'GET', `?q=${asn}`);
  return (res.json as { data: { asn: number; enabled: boolean; note: string | null }[] }).data.find((e) => e.asn === asn);
}

it.skipIf(cluster.skip)('DELETE and PUT raced on two nodes: a deleted entry stays deleted', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const asn = 65_100 + i;
    expect((await admin(0, 'POST', '', { asn, provider: 'Race Hosting', category: 'hosting' })).status).toBe(201);
    const [del, put] = await Promise.all([admin(0, 'DELETE', `/${asn}`), admin(1, 'PUT', `/${asn}`, { enabled: false, note: 'paused' })]);
    expect(del.status).toBe(204);
    expect([200, 404]).toContain(put.status);
    expect(await stored(asn)).toBeUndefined();
  }
});

it.skipIf(cluster.skip)('two PUTs raced on two nodes keep the note, on a custom entry and on a built-in one', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const asn = i === 0 ? BUILT_IN : 65_300 + i;
    if (asn !== BUILT_IN) expect((await admin(0, 'POST', '', { asn, provider: 'Note Race', category: 'hosting', note: 'original' })).status).toBe(201);
    const [a, b] = await Promise.all([admin(0, 'PUT', `/${asn}`, { enabled: false, note: 'paused by A' }), admin(1, 'PUT', `/${asn}`, { enabled: true })]);
    expect(a.json).toMatchObject({ enabled: false, note: 'paused by A' });
    expect(b.json).toMatchObject({ enabled: true });
    expect(await stored(asn)).toMatchObject({ note: 'paused by A' });
  }
});
