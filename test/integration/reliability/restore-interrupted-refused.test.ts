// A restore killed between its two renames (cli/backup.ts, swapIn: db to
// db.before-restore-<time>, then db.restore-<pid> to db) leaves a data
// directory with no db/. The next `serve` or CLI command made a new, empty
// store there, a new admin and key over bootstrap.json, and served it, with
// nothing saying where the real store was. Now every process that opens the
// store refuses, names both directories and what to do, and creates
// nothing; moving the restored copy to db/ or running the restore again
// brings the store back. The state is built by hand exactly as the
// interrupted swap leaves it (the real thing: strace -e
// inject=rename:signal=SIGKILL:when=2 on `splitguard restore`).
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { call } from '../../helpers/client.js';
import { serveToExit, startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const source = tempDataDir();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-restore-interrupted-'));
const backup = path.join(scratch, 'backup.mdb');
const STAGING = 'db.restore-4242';
const PREVIOUS = `db.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
let inBackup: { account_id: number; api_key: string };
let afterBackup: { account_id: number; api_key: string };
let server: TestServer | undefined;

beforeAll(async () => {
  // A first start: bootstrap.json and the admin account, as in production.
  const first = await startServer({ dataDir: source });
  expect(await first.stop()).toBe(0);
  inBackup = await runCliJson(['account', 'create', '--name', 'in the backup'], source);
  await runCliJson(['backup', '--out', backup], source);
  afterBackup = await runCliJson(['account', 'create', '--name', 'after the backup'], source);
});
afterAll(async () => {
  await server?.close();
  rmSync(source, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A copy of the source data directory as a restore killed between its two renames leaves it. */
function interrupted(name: string): string {
  const dir = path.join(scratch, name);
  cpSync(source, dir, { recursive: true });
  renameSync(path.join(dir, 'db'), path.join(dir, PREVIOUS));
  mkdirSync(path.join(dir, STAGING));
  copyFileSync(backup, path.join(dir, STAGING, 'data.mdb'));
  return dir;
}

const refusal = (dir: string) =>
  `splitguard: the storage in the data directory cannot be opened: ${dir}/db is missing and ${dir}/${STAGING} holds the copy an ` +
  'interrupted restore was installing (checked and whole only if the restore was stopped between its two renames; ' +
  `the newest earlier store is ${dir}/${PREVIOUS}); run splitguard restore --from FILE again, or move the store you want to ` +
  `${dir}/db and start again\n`;

it('serve and a CLI command refuse, naming both directories, and create no store', async () => {
  const dir = interrupted('refused');
  const bootstrap = path.join(dir, 'bootstrap.json');
  const before = { text: readFileSync(bootstrap, 'utf8'), mtime: statSync(bootstrap).mtimeMs };
  const entries = readdirSync(dir).sort();

  const served = serveToExit(dir);
  expect(served.signal, served.stderr).toBeNull();
  expect(served.status, served.stdout + served.stderr).toBe(1);
  expect(served.stderr).toContain(refusal(dir));
  expect(existsSync(path.join(dir, 'db')), 'no new store').toBe(false);
  expect(readFileSync(bootstrap, 'utf8'), 'bootstrap.json untouched').toBe(before.text);
  expect(statSync(bootstrap).mtimeMs).toBe(before.mtime);

  const created = await runCli(['account', 'create', '--name', 'x'], dir);
  expect(created.code, created.stderr).toBe(1);
  expect(created.stderr).toBe(refusal(dir));
  expect(existsSync(path.join(dir, 'db')), 'no new store').toBe(false);
  expect(readdirSync(dir).sort()).toEqual(entries);
});

it('once the restored copy is moved to db/, the server starts and serves the backup', async () => {
  const dir = interrupted('moved');
  renameSync(path.join(dir, STAGING), path.join(dir, 'db'));
  server = await startServer({ dataDir: dir });
  const port = server.ports[0];
  expect((await call(port, server.ca, 'GET', '/v1/routes?limit=1', inBackup.api_key)).status, 'the account in the backup').toBe(200);
  expect((await call(port, server.ca, 'GET', '/v1/routes?limit=1', afterBackup.api_key)).status, 'an account made after it').toBe(401);
  expect((await call(port, server.ca, 'GET', '/v1/routes?limit=1', server.apiKey)).status, 'the first start\'s admin key').toBe(200);
  expect(await server.stop()).toBe(0);
});

it('a second restore installs into the missing db/', async () => {
  const dir = interrupted('restored-again');
  const restored = await runCliJson<{ db: string; previous: string | null }>(['restore', '--from', backup], dir);
  expect(restored).toMatchObject({ db: path.join(dir, 'db'), previous: null });
  expect(existsSync(path.join(dir, PREVIOUS, 'data.mdb')), 'the store before the first restore is kept').toBe(true);
  expect((await runCli(['key', 'reset', '--account', String(inBackup.account_id)], dir)).code, 'the account in the backup').toBe(0);
  const after = await runCli(['key', 'reset', '--account', String(afterBackup.account_id)], dir);
  expect(after.stderr).toBe(`splitguard: key reset: account ${afterBackup.account_id} does not exist\n`);
});

it('a db.before-restore-* alone (no db.restore-*) is not refused', async () => {
  const dir = interrupted('previous-only');
  rmSync(path.join(dir, STAGING), { recursive: true });
  const created = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'in a new store'], dir);
  expect(created.account_id).toBe(1);
  expect(existsSync(path.join(dir, 'db', 'data.mdb'))).toBe(true);
});
