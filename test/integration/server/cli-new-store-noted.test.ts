// A command run on a data directory without a store makes a new one, which
// is what an operator preparing accounts before the first start means; a
// mistyped SPLITGUARD_DATA_DIR (or the wrong working directory) made one
// just the same, and printed an API key that no server knew, without a
// word. The command now says on stderr that it made a new store, and where.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('says it made a new store, once', async () => {
  const first = await runCli(['account', 'create', '--name', 'typo'], dataDir);
  expect(first.code, first.stderr).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ account_id: expect.any(Number), api_key: expect.any(String) });
  expect(first.stderr).toBe(`splitguard: note: there was no store in ${path.join(dataDir, 'db')}, so a new one was made; if a server runs elsewhere, set SPLITGUARD_DATA_DIR to its data directory\n`);
  const second = await runCli(['account', 'create', '--name', 'again'], dataDir);
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toBe('');
});
