// A TLS path that is not a regular file is refused at start, never read:
// reading a FIFO waits forever (the start hung), and a directory where the
// generated pair goes cannot be replaced by a new pair (the start died with
// an EISDIR stack trace). The data directory's pair: exit 1 naming the file
// and what to do; a configured one: the configuration's own message, exit 2.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Env, serveToExit, startServer, tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
const cert = path.join(dataDir, 'tls', 'cert.pem');
const key = path.join(dataDir, 'tls', 'key.pem');
beforeAll(async () => {
  const first = await startServer({ dataDir });
  expect(await first.stop()).toBe(0);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const serve = (env: Env = {}) => serveToExit(dataDir, env);

/** Puts a FIFO (mkfifo), a directory or a symlink to itself at `file`, runs `fn`, then puts back what was there. */
function replaced(file: string, kind: 'fifo' | 'directory' | 'symlink loop', fn: () => void): void {
  const before = existsSync(file) ? readFileSync(file) : null;
  rmSync(file, { recursive: true, force: true });
  if (kind === 'directory') mkdirSync(file);
  else if (kind === 'symlink loop') symlinkSync(path.basename(file), file);
  else expect(spawnSync('mkfifo', [file]).status).toBe(0);
  try {
    fn();
  } finally {
    rmSync(file, { recursive: true, force: true });
    if (before !== null) writeFileSync(file, before);
  }
}

it.each([
  ['cert.pem', 'directory'],
  ['key.pem', 'fifo'],
  // stat fails with ELOOP: it was a stack trace.
  ['cert.pem', 'symlink loop'],
] as const)('refuses the data directory\'s %s as a %s with exit 1', (name, kind) => {
  const file = name === 'cert.pem' ? cert : key;
  replaced(file, kind, () => {
    const r = serve();
    expect(r.error, 'the start must end by itself').toBeUndefined();
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toContain(`splitguard: the TLS certificate and key cannot be used: ${file} is not a regular file (a directory, FIFO or device); move it away and a new self-signed pair is made`);
  });
});

it('refuses a configured key that is a FIFO with the configuration\'s message, exit 2', () => {
  const fifo = path.join(dataDir, 'configured-key.pem');
  replaced(fifo, 'fifo', () => {
    const r = serve({ SPLITGUARD_TLS_CERT: cert, SPLITGUARD_TLS_KEY: fifo });
    expect(r.error, 'the start must end by itself').toBeUndefined();
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^splitguard: SPLITGUARD_TLS_KEY must be a readable, unencrypted PEM private key file, got ".*configured-key\.pem"$/m);
  });
});
