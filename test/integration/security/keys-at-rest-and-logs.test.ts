// API keys exist in plaintext only where the contract puts them: printed
// once on the first start (standard error) and in bootstrap.json (mode 0600),
// and on the standard output of the CLI command that made them. The store
// holds their SHA-256 only, and the server's logs never carry one, whatever
// the requests did with them (valid, revoked, wrong, in the wrong header, in a
// body, in a query string, in a path).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const keys: string[] = [];
let revoked: string;
let output = '';

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesBelow(p) : [p];
  });
}

beforeAll(async () => {
  server = await startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '100000' } });
  keys.push(server.apiKey);
  for (const name of ['one', 'two']) {
    keys.push((await runCliJson<{ api_key: string }>(['account', 'create', '--name', name], server.dataDir)).api_key);
  }
  const created = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'reset me'], server.dataDir);
  revoked = created.api_key;
  keys.push((await runCliJson<{ api_key: string }>(['key', 'reset', '--account', String(created.account_id)], server.dataDir)).api_key);

  // Every key, used in every way, on both threads; plus the revoked one, and
  // near-misses of each (one character changed), which fail authentication.
  let n = 0;
  const send = (init: Parameters<typeof request>[0] extends infer O ? Omit<O & object, 'port' | 'ca'> : never) =>
    request({ port: server.ports[n++ % 2], ca: server.ca, localAddress: `127.0.${(n >> 3) & 255}.${(n & 7) + 2}`, ...init });
  for (const key of [...keys, revoked]) {
    const nearMiss = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    for (let i = 0; i < 10; i++) {
      await send({ path: '/v1/account', key });
      await send({ path: '/v1/routes', key: nearMiss });
      await send({ method: 'POST', path: '/v1/routes', key, json: { name: key, page_a: `https://a.example/${key}`, page_b: 'https://b.example/', api_key: key } });
      // (Refused, so that the test itself stores no key as data: a name is data.)
      await send({ method: 'PUT', path: '/v1/account', key, json: { name: key, quota: 1 } });
      await send({ path: `/v1/ip/check?ip=${key}&key=${key}`, key });
      await send({ path: `/v1/${key}`, key });
      await send({ path: `/nowhere/${key}` });
      await send({ path: '/v1/account', headers: { Authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` } });
      await send({ path: '/v1/account', headers: { Authorization: key, 'X-Api-Key': key, Cookie: `key=${key}` } });
      await send({ method: 'PUT', path: '/v1/account', key, body: `{"name": "${key}"`, headers: { 'Content-Type': 'application/json' } });
    }
  }
  // The server writes last-use times on shutdown; scan after it has stopped.
  await server.stop();
  output = server.output();
});
afterAll(async () => {
  await server?.close();
});

it('the store holds only hashes: no key, nor its secret part, in any file of the data directory but bootstrap.json', () => {
  const files = filesBelow(server.dataDir);
  const lmdb = files.filter((f) => /\.mdb$/.test(f));
  expect(lmdb.map((f) => path.relative(server.dataDir, f)).sort()).toEqual(['db/data.mdb', 'db/lock.mdb']);
  const contents = files.filter((f) => path.basename(f) !== 'bootstrap.json').map((f) => ({ f, bytes: readFileSync(f) }));
  for (const key of [...keys, revoked]) {
    const secret = key.slice(12); // past "sg_" and the six characters kept as the public prefix
    for (const { f, bytes } of contents) {
      expect(bytes.includes(key), `${key} in ${f}`).toBe(false);
      expect(bytes.includes(secret), `the secret part of ${key} in ${f}`).toBe(false);
    }
    // The control: what is stored is the hash, and the scan would see it.
    const hash = createHash('sha256').update(key).digest('hex');
    expect(readFileSync(path.join(server.dataDir, 'db', 'data.mdb')).includes(hash), `hash of ${key}`).toBe(true);
  }
});

it('bootstrap.json, the one file with a plaintext key, is readable by its owner only', () => {
  const file = path.join(server.dataDir, 'bootstrap.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, 'utf8')).toContain(server.apiKey);
});

it('the logs carry no key: the bootstrap key appears once, on standard error, in the first-start announcement', () => {
  const [stdout, stderr] = output.split('--- stderr ---\n');
  expect(stdout.length).toBeGreaterThan(0);
  // The logs did see the traffic (unauthorized requests are not logged one
  // by one, but start, stop and the database are).
  expect(stdout).toMatch(/"event":"listening"/);
  expect(stdout).toMatch(/"event":"stopped"/);
  for (const key of [...keys, revoked]) {
    const secret = key.slice(12);
    expect(stdout.includes(secret), `${key} on stdout`).toBe(false);
    const times = stderr.split(secret).length - 1;
    expect(times, `${key} on stderr`).toBe(key === server.apiKey ? 1 : 0);
  }
  expect(stderr).toMatch(new RegExp(`^API key for account \\d+: ${server.apiKey}$`, 'm'));
});
