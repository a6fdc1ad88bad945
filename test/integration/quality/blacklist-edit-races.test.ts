// Edits of one blacklist entry raced through the two threads of a real
// server: each edit reads and writes the stored entry in one transaction, so
// the outcome is that of some order of the two, and each answer shows its
// own edit. Before, PUT read the entry outside the transaction and wrote it
// back whole: a DELETE answered 204 could be undone by a PUT answered 200
// (the removed ASN blocked traffic again), and of two PUTs the later write
// dropped the other's note.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const ROUNDS = 30;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
});
afterAll(async () => {
  await server?.close();
});

const admin = (method: string, path: string, body: unknown, thread: number) => api(server, method, `/v1/admin/blacklist${path}`, body, { thread });

async function stored(asn: number): Promise<{ enabled: boolean; note: string | null } | undefined> {
  const res = await admin('GET', `?q=${asn}`, undefined, 0);
  expect(res.status).toBe(200);
  return (res.json as { data: { asn: number; enabled: boolean; note: string | null }[] }).data.find((e) => e.asn === asn);
}

it('a DELETE answered 204 stays deleted whatever PUT raced it', async () => {
  const resurrected: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const asn = 65_100 + i;
    expect((await admin('POST', '', { asn, provider: 'Race Hosting', category: 'hosting' }, 0)).status).toBe(201);
    const [del, put] = await Promise.all([admin('DELETE', `/${asn}`, undefined, 0), admin('PUT', `/${asn}`, { enabled: false, note: 'paused' }, 1)]);
    expect(del.status).toBe(204);
    // Before the removal the PUT succeeds with its own edit; after it, the entry is not found.
    if (put.status === 200) expect(put.json).toMatchObject({ asn, enabled: false, note: 'paused' });
    else expect(put.status).toBe(404);
    if ((await stored(asn)) !== undefined) resurrected.push(asn);
  }
  expect(resurrected).toEqual([]);
});

it('two PUTs keep the note one of them set, and each answers with its own edit', async () => {
  const lost: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const asn = 65_300 + i;
    expect((await admin('POST', '', { asn, provider: 'Note Race', category: 'hosting', note: 'original' }, 0)).status).toBe(201);
    const [a, b] = await Promise.all([
      admin('PUT', `/${asn}`, { enabled: false, note: 'paused by A' }, 0),
      admin('PUT', `/${asn}`, { enabled: true }, 1),
    ]);
    expect(a.json).toMatchObject({ enabled: false, note: 'paused by A' });
    expect(b.json).toMatchObject({ enabled: true });
    // B leaves the note out, which keeps it: in either order A's note is the one stored.
    const after = await stored(asn);
    if (after?.note !== 'paused by A') lost.push(asn);
    // The stored entry is the later edit's answer.
    expect([(a.json as { enabled: boolean }).enabled, (b.json as { enabled: boolean }).enabled]).toContain(after?.enabled);
  }
  expect(lost).toEqual([]);
});
