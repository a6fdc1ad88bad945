// The check `splitguard backup` and `restore` run on a copy (cli/store-check.ts)
// reads every named database the store has, not a list of its own: a
// database it did not know (feed, click_spill) was never read, so a damaged
// page in it went into a backup unseen. The names are LMDB's own (the keys
// of the root database), not store/db.ts's list.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStores } from '../../../src/store/db.js';
import { runCliJson } from '../../helpers/cli.js';
import { tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-backup-every-'));
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

it('counts the records of every database openStores opens, click_spill and feed included', async () => {
  const stores = openStores(dataDir);
  await stores.clickSpill.put([0, 1], []);
  await stores.clickSpill.put([0, 2], []);
  const names = [...stores.root.getKeys()].map(String).sort();
  await stores.root.close();
  expect(names).toContain('feed');
  expect(names).toContain('click_spill');

  const out = await runCliJson<{ records: Record<string, number> }>(['backup', '--out', path.join(scratch, 'backup.mdb')], dataDir);
  expect(Object.keys(out.records).sort()).toEqual(names);
  expect(out.records.click_spill).toBe(2);
});
