// `splitguard user create` refuses an email that already has a login, and
// the refusal leaves nothing behind: no account is created for the user
// that was not made (account ids are never reused, so a leftover account
// would show as a gap in the next id).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'splitguard-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('refuses a duplicate email without creating an account for it', async () => {
  const first = await runCliJson<{ email: string; admin: boolean; account_id: number }>(
    ['user', 'create', '--email', 'Ops@Example.com', '--password', 'a-long-password'],
    dataDir,
  );
  expect(first).toEqual({ email: 'ops@example.com', admin: false, account_id: 1 });

  const dup = await runCli(['user', 'create', '--email', 'ops@example.com', '--password', 'another-password', '--admin'], dataDir);
  expect(dup.code).not.toBe(0);
  expect(dup.stdout).toBe('');
  expect(dup.stderr).toMatch(/^splitguard: user create: a user with email ops@example\.com already exists/);

  const next = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'next'], dataDir);
  expect(next.account_id).toBe(2);
});
