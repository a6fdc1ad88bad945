// Every splitguard command, given bad arguments, bad files or a bad
// environment, exits non-zero with one clear message on stderr: it starts
// with "splitguard: ", names what is wrong, carries no stack trace, and
// nothing is printed as a result on stdout. Exit 2 means the command line or
// the configuration is wrong; exit 1 means the command ran and failed (a
// missing account, an unreadable or invalid file, a failed refresh).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { ensureCachedDatabase, ROOT } from '../../helpers/ipdb-cache.js';
import { generateSelfSigned } from '../../../src/tls/self-signed.js';
import { BIN, childEnv, tempDataDir } from '../../helpers/server.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-cli-bad-'));
const file = (name: string) => path.join(scratch, name);
let dataDir: string;
let accountId: number;

/** Deterministic bytes that are neither CSV, a trie, nor LMDB. */
function garbage(n: number): Buffer {
  const out = Buffer.alloc(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

beforeAll(async () => {
  dataDir = tempDataDir();
  writeFileSync(file('garbage.bin'), garbage(5000));
  writeFileSync(file('empty'), '');
  writeFileSync(file('text.txt'), 'hello, world\nnot a database\n');
  writeFileSync(file('header-only.csv'), 'ip_range_start,ip_range_end,autonomous_system_number,autonomous_system_organization\n');
  mkdirSync(file('a-directory'));
  const db = readFileSync(ensureCachedDatabase());
  writeFileSync(file('truncated.trie'), db.subarray(0, Math.floor(db.length / 2)));
  copyFileSync(ensureCachedDatabase(), file('valid.trie'));
  const created = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'existing'], dataDir);
  accountId = created.account_id;
  await runCliJson(['user', 'create', '--email', 'taken@example.com', '--password', 'a-long-password'], dataDir);
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

interface Case {
  args: string[];
  code: 1 | 2;
  stderr: RegExp;
  env?: Record<string, string>;
  /** The command prints its (failed) result on stdout too. */
  stdout?: 'any';
  /** Standard input (otherwise open and empty). */
  input?: string | Buffer;
}

/** Test names: the command line (and environment) of each case. */
function named(cases: Case[]): [string, Case][] {
  return cases.map((c) => [`${c.args.join(' ')}${c.env ? ` with ${Object.entries(c.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}${c.input === undefined ? '' : ` < ${inputName(c.input)}`} → exit ${c.code}`, c]);
}

function inputName(input: string | Buffer): string {
  return typeof input === 'string' && input.length <= 40 ? JSON.stringify(input) : `${Buffer.byteLength(input)} bytes`;
}

async function expectRefusal(c: Case): Promise<void> {
  const r = await runCli(c.args, dataDir, c.env ?? {}, undefined, c.input);
  const what = `splitguard ${c.args.join(' ')}\n--- stdout ---\n${r.stdout}--- stderr ---\n${r.stderr}`;
  expect(r.code, what).toBe(c.code);
  expect(r.stderr, what).toMatch(/^splitguard: /);
  expect(r.stderr, what).toMatch(c.stderr);
  expect(r.stderr, what).not.toMatch(/^\s+at /m);
  expect(r.stderr, what).not.toMatch(/unexpected failure/);
  if (c.stdout !== 'any') expect(r.stdout, what).toBe('');
}

describe('unknown commands and flags', () => {
  it.each(named([
    { args: ['frobnicate'], code: 2, stderr: /unknown command "frobnicate"/ },
    { args: ['account', 'delete'], code: 2, stderr: /unknown account command "delete"\nusage:[^]*account create/ },
    { args: ['key', 'revoke'], code: 2, stderr: /unknown key command "revoke"\nusage:[^]*key reset/ },
    { args: ['user', 'rename'], code: 2, stderr: /unknown user command "rename"\nusage:[^]*user create/ },
    { args: ['key'], code: 2, stderr: /key: a command is required\nusage:[^]*key reset/ },
    { args: ['ipdb'], code: 2, stderr: /ipdb build/ },
    { args: ['ipdb', 'compile'], code: 2, stderr: /unknown ipdb command "compile"/ },
    { args: ['serve', '--port', '1'], code: 2, stderr: /serve: Unknown option '--port'/ },
    { args: ['serve', 'now'], code: 2, stderr: /serve: Unexpected argument 'now'/ },
    { args: ['account', 'create', '--name', 'x', '--frobnicate'], code: 2, stderr: /account create: Unknown option '--frobnicate'/ },
    // Given twice, an option is refused, not read as its last value (a key reset revoked the second account's keys).
    { args: ['key', 'reset', '--account', '1', '--account', '2'], code: 2, stderr: /key reset: option '--account' is given more than once/ },
    { args: ['account', 'create', '--name', 'A', '--name=B'], code: 2, stderr: /account create: option '--name' is given more than once/ },
    { args: ['ipdb', 'refresh', '--now'], code: 2, stderr: /ipdb refresh: Unknown option '--now'/ },
    { args: ['ipdb', 'reset-feed'], code: 2, stderr: /ipdb reset-feed: one feed NAME is required/ },
    { args: ['ipdb', 'reset-feed', 'tor', 'aws'], code: 2, stderr: /ipdb reset-feed: one feed NAME is required/ },
    { args: ['ipdb', 'reset-feed', 'Tor'], code: 2, stderr: /ipdb reset-feed: unknown feed "Tor"/ },
    { args: ['backup', '--out'], code: 2, stderr: /backup: Option '--out <value>' argument missing/ },
    { args: ['restore', '--form', 'x'], code: 2, stderr: /restore: Unknown option '--form'/ },
  ]))('%s', (_name, c) => expectRefusal(c));
});

describe('serve with a bad environment', () => {
  it.each(named([
    { args: ['serve'], env: { PORT: 'eighty' }, code: 2, stderr: /PORT must be an integer/ },
    { args: ['serve'], env: { SPLITGUARD_THREADS: '1000' }, code: 2, stderr: /SPLITGUARD_THREADS must be/ },
    { args: ['serve'], env: { SPLITGUARD_BASE_URL: 'javascript:alert(1)' }, code: 2, stderr: /SPLITGUARD_BASE_URL must be/ },
    { args: ['serve'], env: { SPLITGUARD_TLS_CERT: path.join(os.tmpdir(), 'no-such-cert.pem') }, code: 2, stderr: /SPLITGUARD_TLS_(CERT|KEY)/ },
    { args: ['serve'], env: { SPLITGUARD_IPDB_REFRESH_HOURS: '0' }, code: 2, stderr: /SPLITGUARD_IPDB_REFRESH_HOURS must be/ },
    { args: ['account', 'create', '--name', 'x'], env: { SPLITGUARD_TRUST_PROXY: '10.0.0.0/33' }, code: 2, stderr: /SPLITGUARD_TRUST_PROXY must be/ },
  ]))('%s', (_name, c) => expectRefusal(c));

  it('TLS files that are not a certificate and its key: exit 2 naming the variable, before the data directory is touched', async () => {
    const one = generateSelfSigned(['localhost']);
    const other = generateSelfSigned(['localhost']);
    writeFileSync(file('cert.pem'), one.cert);
    writeFileSync(file('key.pem'), one.key);
    writeFileSync(file('other-key.pem'), other.key);
    const cases: [Record<string, string>, RegExp][] = [
      [{ SPLITGUARD_TLS_CERT: file('text.txt'), SPLITGUARD_TLS_KEY: file('key.pem') }, /^splitguard: SPLITGUARD_TLS_CERT must be a readable PEM certificate file, got ".*text\.txt"$/],
      [{ SPLITGUARD_TLS_CERT: file('a-directory'), SPLITGUARD_TLS_KEY: file('key.pem') }, /^splitguard: SPLITGUARD_TLS_CERT must be a readable PEM certificate file/],
      [{ SPLITGUARD_TLS_CERT: file('cert.pem'), SPLITGUARD_TLS_KEY: file('cert.pem') }, /^splitguard: SPLITGUARD_TLS_KEY must be a readable, unencrypted PEM private key file/],
      [{ SPLITGUARD_TLS_CERT: file('cert.pem'), SPLITGUARD_TLS_KEY: file('other-key.pem') }, /^splitguard: SPLITGUARD_TLS_KEY must be the private key of SPLITGUARD_TLS_CERT/],
    ];
    for (const [env, message] of cases) {
      const fresh = path.join(scratch, `tls-${Object.values(env).map((v) => path.basename(v)).join('-')}`);
      const r = await runCli(['serve'], fresh, { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', ...env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toMatch(message);
      expect(r.stdout).toBe('');
      // Nothing was bootstrapped: no data directory at all.
      expect(existsSync(fresh), fresh).toBe(false);
    }
  });

  it('a data directory that is a file: exit 1 naming the directory', async () => {
    const r = await runCli(['serve'], file('text.txt'), { PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^splitguard: .*cannot be opened: .*text\.txt/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('account create, key reset, user create, user password, user sign-out, user delete', () => {
  it.each(named([
    { args: ['account', 'create'], code: 2, stderr: /--name NAME is required/ },
    { args: ['account', 'create', '--name', '   '], code: 2, stderr: /--name NAME is required/ },
    { args: ['account', 'create', '--name', 'x'.repeat(201)], code: 2, stderr: /--name must be at most 200 characters/ },
    { args: ['account', 'create', '--name', 'x', '--quota', '0'], code: 2, stderr: /--quota must be a positive integer, got "0"/ },
    { args: ['account', 'create', '--name', 'x', '--quota', '-5'], code: 2, stderr: /account create: option '--quota' needs a value; a value that begins with '-' is written --quota=-…$/m },
    { args: ['account', 'create', '--name', 'x', '--quota=-5'], code: 2, stderr: /--quota must be a positive integer, got "-5"/ },
    { args: ['account', 'create', '--name', 'x', '--quota', '1e3'], code: 2, stderr: /--quota must be a positive integer, got "1e3"/ },
    { args: ['account', 'create', '--name', 'x', 'extra'], code: 2, stderr: /Unexpected argument 'extra'/ },
    { args: ['key', 'reset'], code: 2, stderr: /key reset: --account is required/ },
    { args: ['key', 'reset', '--account', 'abc'], code: 2, stderr: /--account must be a positive integer, got "abc"/ },
    { args: ['key', 'reset', '--account', '0'], code: 2, stderr: /--account must be a positive integer, got "0"/ },
    { args: ['account', 'create', '--name', 'x', '--quota', '1000000001'], code: 2, stderr: /--quota must be a positive integer, got "1000000001" \(at most 1000000000\)/ },
    // The command line is right; the account is missing: the command failed.
    { args: ['key', 'reset', '--account', '999'], code: 1, stderr: /key reset: account 999 does not exist/ },
    { args: ['user', 'create', '--password', 'a-long-password'], code: 2, stderr: /--email must be an email address/ },
    { args: ['user', 'create', '--email', 'no-at-sign', '--password', 'a-long-password'], code: 2, stderr: /--email must be an email address, got "no-at-sign"/ },
    { args: ['user', 'create', '--email', 'a@example.com', '--password', 'short'], code: 2, stderr: /--password must be at least 10 characters/ },
    // Characters, not UTF-16 units: five emoji are five.
    { args: ['user', 'create', '--email', 'a@example.com', '--password', '\u{1F600}'.repeat(5)], code: 2, stderr: /--password must be at least 10 characters/ },
    // Sign-in refuses passwords over 1,024 characters: such a user could never sign in.
    { args: ['user', 'create', '--email', 'a@example.com', '--password', 'p'.repeat(1025)], code: 2, stderr: /--password must be at most 1024 characters/ },
    { args: ['user', 'create', '--email', 'a@example.com', '--password', 'a-long-password', '--account', 'x'], code: 2, stderr: /--account must be a positive integer/ },
    { args: ['user', 'create', '--email', 'a@example.com', '--password', 'a-long-password', '--account', '999'], code: 1, stderr: /user create: account 999 does not exist/ },
    { args: ['user', 'create', '--email', 'TAKEN@example.com', '--password', 'a-long-password'], code: 1, stderr: /user create: a user with email taken@example\.com already exists/ },
    { args: ['user', 'password', '--password', 'a-long-password'], code: 2, stderr: /user password: --email is required/ },
    { args: ['user', 'password', '--email', 'taken@example.com'], code: 2, stderr: /user password: --password \(or --password-stdin\) is required/ },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password', 'short'], code: 2, stderr: /user password: --password must be at least 10 characters/ },
    { args: ['user', 'create', '--email', 'a@example.com'], code: 2, stderr: /user create: --password \(or --password-stdin\) is required/ },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password', 'p'.repeat(1025)], code: 2, stderr: /user password: --password must be at most 1024 characters/ },
    { args: ['user', 'password', '--email', 'nobody@example.com', '--password', 'a-long-password'], code: 1, stderr: /user password: there is no user with email nobody@example\.com/ },
    { args: ['user', 'sign-out'], code: 2, stderr: /user sign-out: --email is required/ },
    { args: ['user', 'sign-out', '--email', '  '], code: 2, stderr: /user sign-out: --email is required/ },
    { args: ['user', 'sign-out', '--email', 'taken@example.com', 'extra'], code: 2, stderr: /Unexpected argument 'extra'/ },
    { args: ['user', 'sign-out', '--email', 'nobody@example.com'], code: 1, stderr: /user sign-out: there is no user with email nobody@example\.com/ },
    { args: ['user', 'delete'], code: 2, stderr: /user delete: --email is required/ },
    { args: ['user', 'delete', '--email', 'taken@example.com', '--account', '1'], code: 2, stderr: /user delete: Unknown option '--account'/ },
    { args: ['user', 'delete', '--email', 'nobody@example.com'], code: 1, stderr: /user delete: there is no user with email nobody@example\.com/ },
    // --password-stdin: the password alone on one line, one line end allowed after it.
    { args: ['user', 'password', '--email', 'taken@example.com', '--password', 'a-long-password', '--password-stdin'], code: 2, stderr: /user password: give --password or --password-stdin, not both/, input: 'another-password\n' },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input held no password/, input: '' },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input held no password/, input: '\r\n' },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input must hold the password alone, on one line/, input: 'a-long-password\nand more\n' },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input must hold the password alone, on one line/, input: 'a-long-password\n\n' },
    // A byte order mark (a Windows editor's file) is refused, not dropped in silence.
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input starts with a byte order mark/, input: '\uFEFFa-long-password\r\n' },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: --password-stdin: standard input is not UTF-8 text/, input: Buffer.from([0x61, 0x2d, 0x6c, 0x6f, 0x6e, 0x67, 0xff, 0xfe, 0x70, 0x61, 0x73, 0x73]) },
    { args: ['user', 'password', '--email', 'taken@example.com', '--password-stdin'], code: 2, stderr: /user password: the password on standard input must be at least 10 characters/, input: 'short\n' },
    { args: ['user', 'create', '--email', 'b@example.com', '--password-stdin'], code: 2, stderr: /user create: the password on standard input must be at most 1024 characters/, input: 'p'.repeat(1025) },
    // Past what 1,024 characters can take in UTF-8 (4,098 bytes with a line end), reading stops.
    { args: ['user', 'create', '--email', 'b@example.com', '--password-stdin'], code: 2, stderr: /user create: the password on standard input must be at most 1024 characters/, input: 'p'.repeat(1 << 20) },
  ]))('%s', (_name, c) => expectRefusal(c));

  it('--password-stdin refuses a terminal, which would show the password as it is typed', () => {
    // script(1) runs the command on a pseudo-terminal, its standard input a TTY; its output is the terminal's.
    const command = [process.execPath, BIN, 'user', 'password', '--email', 'taken@example.com', '--password-stdin'].map((a) => JSON.stringify(a)).join(' ');
    const r = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: childEnv(dataDir), encoding: 'utf8', timeout: 20_000, input: '' });
    expect(r.status, r.stdout).toBe(2);
    expect(r.stdout).toMatch(/splitguard: user password: --password-stdin reads a pipe or a file, not a terminal/);
  });

  it('a refused key reset left the existing account and its key alone', async () => {
    const r = await runCliJson<{ account_id: number }>(['key', 'reset', '--account', String(accountId)], dataDir);
    expect(r.account_id).toBe(accountId);
  });
});

describe('ipdb build', () => {
  const out = () => file('out.trie');
  it.each<[string, () => Case]>([
    ['no --out', () => ({ args: ['ipdb', 'build', file('text.txt')], code: 2, stderr: /--out FILE is required/ })],
    ['no source', () => ({ args: ['ipdb', 'build', '--out', out()], code: 2, stderr: /at least one SOURCE file is required/ })],
    ['a missing source', () => ({ args: ['ipdb', 'build', '--out', out(), file('missing.csv')], code: 1, stderr: /could not be read: .*missing\.csv \(ENOENT\)/ })],
    ['a directory as source', () => ({ args: ['ipdb', 'build', '--out', out(), file('a-directory')], code: 1, stderr: /could not be read: .*a-directory \(EISDIR\)/ })],
    ['a garbage source', () => ({ args: ['ipdb', 'build', '--out', out(), file('garbage.bin')], code: 1, stderr: /source is invalid: garbage\.bin/ })],
    ['an empty source', () => ({ args: ['ipdb', 'build', '--out', out(), file('empty')], code: 1, stderr: /source is invalid: empty: no address ranges found/ })],
    ['a header without rows', () => ({ args: ['ipdb', 'build', '--out', out(), file('header-only.csv')], code: 1, stderr: /no address ranges found/ })],
    ['a text source', () => ({ args: ['ipdb', 'build', '--out', out(), file('text.txt')], code: 1, stderr: /source is invalid: text\.txt/ })],
  ])('%s', async (_label, c) => {
    await expectRefusal(c());
  });

  // A real source, so that the build succeeds and only the write can fail.
  const csv = () => {
    const p = file('tiny.csv');
    writeFileSync(p, '1.0.0.0,1.0.0.255,13335,Cloudflare\n8.8.8.0,8.8.8.255,15169,Google LLC\n');
    return p;
  };
  it.each<[string, () => string, RegExp]>([
    ['an --out below a file', () => path.join(file('text.txt'), 'out.trie'), /could not be written: .*text\.txt\/out\.trie \(ENOTDIR\)/],
    ['an --out in a missing directory', () => path.join(scratch, 'no', 'such', 'dir', 'out.trie'), /could not be written: .*out\.trie \(ENOENT\)/],
    ['an --out that is a directory', () => file('a-directory'), /could not be written: .*a-directory \(EISDIR\)/],
  ])('%s: exit 1, the file is not written', async (_label, target, message) => {
    await expectRefusal({ args: ['ipdb', 'build', '--out', target(), csv()], code: 1, stderr: message });
  });
});

describe('ipdb lookup and info on files that are not databases', () => {
  it.each<[string, string, RegExp]>([
    ['garbage', 'garbage.bin', /not a splitguard IP database \(bad magic\)/],
    ['an empty file', 'empty', /truncated/],
    ['a text file', 'text.txt', /truncated|bad magic/],
    ['a truncated database', 'truncated.trie', /truncated/],
    ['a directory', 'a-directory', /not a regular file/],
    ['a missing file', 'missing.trie', /could not be opened/],
  ])('lookup --db %s: exit 1', async (_label, name, message) => {
    await expectRefusal({ args: ['ipdb', 'lookup', '--db', file(name), '8.8.8.8'], code: 1, stderr: message });
  });

  it.each<[string, string, RegExp]>([
    ['garbage', 'garbage.bin', /bad magic/],
    ['an empty file', 'empty', /truncated/],
    ['a text file', 'text.txt', /truncated|bad magic/],
    ['a truncated database', 'truncated.trie', /truncated/],
    ['a directory', 'a-directory', /not a regular file/],
  ])('info on %s: exit 1', async (_label, name, message) => {
    await expectRefusal({ args: ['ipdb', 'info', file(name)], code: 1, stderr: message });
  });

  it.each(named([
    { args: ['ipdb', 'lookup'], code: 2, stderr: /at least one IP address \(or --stdin\) is required/ },
    { args: ['ipdb', 'lookup', '--level', 'max', '8.8.8.8'], code: 2, stderr: /--level must be one of/ },
    { args: ['ipdb', 'lookup', '--stdin', '8.8.8.8'], code: 2, stderr: /not both/ },
    // An empty path read the data directory's database instead.
    { args: ['ipdb', 'lookup', '--db', '', '8.8.8.8'], code: 2, stderr: /an empty database path/ },
    { args: ['ipdb', 'info', ''], code: 2, stderr: /an empty database path/ },
    { args: ['ipdb', 'info', 'a', 'b'], code: 2, stderr: /at most one FILE/ },
  ]))('%s', (_name, c) => expectRefusal(c));

  it('the control: the same database file, whole, is read', async () => {
    const r = await runCli(['ipdb', 'info', file('valid.trie')], dataDir);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('ipdb refresh with bad sources', () => {
  it.each<[string, string]>([
    ['a scheme that is not allowed', 'ftp://example.com/asn.csv'],
    ['not a URL', 'not a url'],
  ])('%s: exit 2 naming SPLITGUARD_IPDB_SOURCES', async (_label, sources) => {
    await expectRefusal({ args: ['ipdb', 'refresh'], env: { SPLITGUARD_IPDB_SOURCES: sources }, code: 2, stderr: /SPLITGUARD_IPDB_SOURCES must be/ });
  });

  it.each<[string, () => string, RegExp]>([
    ['a missing file', () => `file://${file('missing.csv')}`, /missing\.csv/],
    ['a garbage file', () => `file://${file('garbage.bin')}`, /malformed|invalid/],
    ['an empty file', () => `file://${file('empty')}`, /no address ranges|invalid|empty/],
    ['a closed port', () => 'http://127.0.0.1:9/asn.csv', /ECONNREFUSED|127\.0\.0\.1:9/],
  ])('%s: exit 1, the failure on stderr, the current database kept', async (_label, source, detail) => {
    const before = readFileSync(path.join(dataDir, 'ipdb', 'current.trie'));
    const r = await runCli(['ipdb', 'refresh'], dataDir, { SPLITGUARD_IPDB_SOURCES: source() });
    expect(r.code, r.stderr).toBe(1);
    // The message on a line of its own among the log's JSON lines.
    expect(r.stderr).toMatch(/^splitguard: ipdb refresh failed: /m);
    expect(r.stderr).toMatch(detail);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // The failed record is still printed, for scripts: alone on stdout.
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'failed' });
    expect(readFileSync(path.join(dataDir, 'ipdb', 'current.trie')).equals(before)).toBe(true);
  });
});

describe('cluster import', () => {
  it('a data directory without a store: exit 1, and none is created there', async () => {
    const typo = path.join(scratch, 'no-such-data-dir');
    await expectRefusal({
      args: ['cluster', 'import', '--data-dir', typo], code: 1, stderr: /cluster import: there is no store to import in .*no-such-data-dir\/db/,
      env: { SPLITGUARD_DATABASE_URL: 'postgres://127.0.0.1:1/none', SPLITGUARD_REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(existsSync(typo)).toBe(false);
  });
});

describe('backup and restore', () => {
  it.each<[string, () => Case]>([
    ['backup without --out', () => ({ args: ['backup'], code: 2, stderr: /backup: --out FILE is required/ })],
    ['backup over an existing file', () => ({ args: ['backup', '--out', file('text.txt')], code: 1, stderr: /text\.txt already exists/ })],
    ['backup into a missing directory', () => ({ args: ['backup', '--out', path.join(scratch, 'no', 'dir', 'b.mdb')], code: 1, stderr: /directory .*no\/dir does not exist/ })],
    ['backup below a file', () => ({ args: ['backup', '--out', path.join(file('text.txt'), 'b.mdb')], code: 1, stderr: /text\.txt does not exist/ })],
    ['restore without --from', () => ({ args: ['restore'], code: 2, stderr: /restore: --from FILE is required/ })],
    ['restore from a missing file', () => ({ args: ['restore', '--from', file('missing.mdb')], code: 1, stderr: /missing\.mdb does not exist/ })],
    ['restore from a directory', () => ({ args: ['restore', '--from', file('a-directory')], code: 1, stderr: /a-directory is not a file/ })],
    ['restore from an empty file', () => ({ args: ['restore', '--from', file('empty')], code: 1, stderr: /not a valid splitguard backup: it is empty/ })],
    ['restore from garbage', () => ({ args: ['restore', '--from', file('garbage.bin')], code: 1, stderr: /not a valid splitguard backup: it is not an LMDB file/ })],
    ['restore from an IP database', () => ({ args: ['restore', '--from', file('valid.trie')], code: 1, stderr: /not a valid splitguard backup: it is not an LMDB file/ })],
  ])('%s', async (_label, c) => {
    await expectRefusal(c());
  });

  it('backup of a data directory without a store: exit 1', async () => {
    const empty = mkdtempSync(path.join(scratch, 'nostore-'));
    const r = await runCli(['backup', '--out', file('never.mdb')], empty);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^splitguard: backup: there is no store to back up in /);
  });

  it('restore from a truncated or a foreign LMDB file: exit 1, the store untouched', async () => {
    const good = file('good.mdb');
    await runCliJson(['backup', '--out', good], dataDir);
    const bytes = readFileSync(good);
    writeFileSync(file('cut.mdb'), bytes.subarray(0, bytes.length - 4096 - 100));
    const cut = await runCli(['restore', '--from', file('cut.mdb')], dataDir);
    expect(cut.code, cut.stderr).toBe(1);
    expect(cut.stderr).toMatch(/^splitguard: restore: .*cut\.mdb is not a valid splitguard backup: /);

    // A valid LMDB file of someone else's: no splitguard schema in it.
    // (Made in a child process: the test runner does not load native addons.)
    const foreign = mkdtempSync(path.join(scratch, 'foreign-'));
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `import { open } from 'lmdb'; const env = open({ path: ${JSON.stringify(foreign)}, maxDbs: 4 }); await env.openDB({ name: 'other' }).put('a', 1); await env.close();`],
      { cwd: ROOT },
    );
    const r = await runCli(['restore', '--from', path.join(foreign, 'data.mdb')], dataDir);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/not a valid splitguard backup: it has no "meta" database/);

    // Still the same store: the account made in beforeAll is there.
    const key = await runCliJson<{ account_id: number }>(['key', 'reset', '--account', String(accountId)], dataDir);
    expect(key.account_id).toBe(accountId);
  });
});
