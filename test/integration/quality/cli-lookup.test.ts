// `splitguard ipdb lookup`: one JSON line per address (the API's check
// result object), an error line for an address it cannot read, exit 1 when
// any address was invalid, 0 otherwise, `--stdin` for bulk use, and exit 2
// naming the option for a bad --level.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpDatabase } from '../../../src/ipdb/database.js';
import { type CliResult, runCli } from '../../helpers/cli.js';
import { embeddedPackageVersion, ensureCachedDatabase, ROOT } from '../../helpers/ipdb-cache.js';
import { BIN, childEnv, tempDataDir } from '../../helpers/server.js';

let dataDir: string;
let database: { version: string; built_at: string };

beforeAll(() => {
  dataDir = tempDataDir();
  const db = IpDatabase.open(ensureCachedDatabase());
  database = { version: db.info.version, built_at: db.info.builtAt };
  db.close();
  expect(database.version).toBe(embeddedPackageVersion());
});

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const lines = (r: CliResult) =>
  r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);

function withStdin(args: string[], input: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(dataDir), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

const GOOGLE = {
  ip: '8.8.8.8',
  version: 4,
  found: true,
  asn: 15169,
  organization: 'Google LLC',
  range: { start: '8.8.8.0', end: '8.8.8.255' },
  category: 'datacenter',
  signals: { asn_blacklist: true, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null },
  intercept: { low: true, medium: true, high: true },
};
const CLOUDFLARE_MAPPED = {
  ip: '::ffff:1.1.1.1',
  version: 4,
  found: true,
  asn: 13335,
  organization: 'Cloudflare, Inc.',
  range: { start: '1.1.1.0', end: '1.1.1.255' },
  category: 'datacenter',
  signals: { asn_blacklist: true, org_keyword: null, vpn_proxy: null, carrier_whitelist: null, range_feed: null, user_agent: null },
  intercept: { low: false, medium: false, high: true },
};

describe('ipdb lookup', () => {
  it('prints one line per address, an error line for "bad", and exits 1', async () => {
    const r = await runCli(['ipdb', 'lookup', '--level', 'high', '8.8.8.8', '::ffff:1.1.1.1', 'bad'], dataDir);
    expect(r.code, r.stderr).toBe(1);
    const out = lines(r);
    expect(out).toHaveLength(3);
    expect(out[0]).toStrictEqual({ ...GOOGLE, level: 'high', intercepted: true, database });
    expect(out[1]).toStrictEqual({ ...CLOUDFLARE_MAPPED, level: 'high', intercepted: true, database });
    expect(out[2]).toStrictEqual({ ip: 'bad', error: expect.stringContaining('ip'), code: 'invalid_parameter', field: 'ip' });
    expect(r.stderr).toContain('1 invalid address');
  });

  it('exits 0 when every address is valid', async () => {
    const r = await runCli(['ipdb', 'lookup', '--level', 'high', '8.8.8.8', '::ffff:1.1.1.1'], dataDir);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r)).toStrictEqual([
      { ...GOOGLE, level: 'high', intercepted: true, database },
      { ...CLOUDFLARE_MAPPED, level: 'high', intercepted: true, database },
    ]);
  });

  it('defaults to level medium', async () => {
    const r = await runCli(['ipdb', 'lookup', '1.1.1.1'], dataDir);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r)).toStrictEqual([{ ...CLOUDFLARE_MAPPED, ip: '1.1.1.1', level: 'medium', intercepted: false, database }]);
  });

  it('--stdin reads one address per line, skipping blank lines and surrounding spaces', async () => {
    const r = await withStdin(['ipdb', 'lookup', '--level', 'low', '--stdin'], '8.8.8.8\n\n  ::ffff:1.1.1.1  \r\n10.0.0.1\n');
    expect(r.code, r.stderr).toBe(0);
    const out = lines(r);
    expect(out.map((o) => [o.ip, o.found, o.level, o.intercepted])).toEqual([
      ['8.8.8.8', true, 'low', true],
      ['::ffff:1.1.1.1', true, 'low', false],
      ['10.0.0.1', false, 'low', false],
    ]);
    expect(out[0]).toStrictEqual({ ...GOOGLE, level: 'low', intercepted: true, database });
  });

  it('--stdin with an invalid line prints its error line in order and exits 1', async () => {
    const r = await withStdin(['ipdb', 'lookup', '--stdin'], '8.8.8.8\n1.2.3\n1.1.1.1\n');
    expect(r.code, r.stderr).toBe(1);
    const out = lines(r);
    expect(out.map((o) => [o.ip, o.code ?? 'ok'])).toEqual([
      ['8.8.8.8', 'ok'],
      ['1.2.3', 'invalid_parameter'],
      ['1.1.1.1', 'ok'],
    ]);
    expect(out[1].field).toBe('ip');
  });

  it('--level bogus exits 2 naming --level, and prints nothing on stdout', async () => {
    const r = await runCli(['ipdb', 'lookup', '--level', 'bogus', '8.8.8.8'], dataDir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--level');
    expect(r.stderr).toContain('bogus');
  });
});
