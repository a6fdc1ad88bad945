// A SPLITGUARD_DATABASE_URL naming a database the cluster's PostgreSQL does
// not have (3D000; a role or password it refuses, class 28, reads the same
// way) stops `serve` and `cluster status` with one line, storage_refused's
// message and pg's reason, never a stack trace or the URL's password.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { tempDataDir } from '../../helpers/server.js';

const stores = useClusterStores();
const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const refused = /^splitguard: the cluster's PostgreSQL refused the connection \(check SPLITGUARD_DATABASE_URL\): 3D000: database "no_such_db" does not exist\n$/;

it.skipIf(stores.skip)('serve and cluster status refuse a missing database in one line', async () => {
  const url = new URL(stores.env().SPLITGUARD_DATABASE_URL!);
  url.pathname = '/no_such_db';
  url.password = 'secret-in-url';
  const env = { ...stores.env(), SPLITGUARD_DATABASE_URL: url.toString(), PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', SPLITGUARD_NODE_NAME: 'n' };
  for (const args of [['serve'], ['cluster', 'status']]) {
    const r = await runCli(args, dataDir, env, 20_000);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
    expect(r.stderr).toMatch(refused);
    expect(r.stderr).not.toContain('secret-in-url');
  }
});
