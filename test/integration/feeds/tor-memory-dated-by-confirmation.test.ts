// Tor's memory dates an exit by when the data that held it was last known to
// be the publisher's list (its download, or a 304 since), not by the last
// attempt: a refresh that failed says nothing about the list. So after an
// outage, the exits the next list lacks are remembered from before the
// outage, and drop out of the week that much sooner.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.104.${i + 1}`);
const ctx = useFeedServer({ '/tor': { body: torList(EXITS), etag: '"r1"' } }, { tor: '/tor' });

const torFeed = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;
const refresh = async (name: string) => refreshNow(ctx.server, (await newAccount(ctx.server, name)).api_key);
/** The tor feed's recent file: address → when it was last seen. */
function remembered(): Map<string, string> {
  const dir = path.join(ctx.server.dataDir, 'ipdb', 'feeds');
  const files = readdirSync(dir).filter((f) => f.startsWith('tor.recent.'));
  expect(files).toHaveLength(1);
  const lines = readFileSync(path.join(dir, files[0]!), 'latin1').split('\n').filter((l) => l && !l.startsWith('#'));
  return new Map(lines.map((l) => [l.split(' ')[0]!.replace(/\/32$/, ''), l.split(' ')[1]!]));
}

it('dates the exits a list dropped by the last confirmation before an outage', async () => {
  await refresh('first list');
  expect(await torFeed()).toMatchObject({ last_outcome: 'updated' });
  // The publisher answers 304: the list is confirmed again, later.
  await refresh('not modified');
  const confirmed = (await torFeed()).last_attempt_at!;
  expect(await torFeed()).toMatchObject({ last_outcome: 'unchanged' });

  ctx.feeds.routes.set('/tor', { status: 503 });
  await refresh('outage');
  const failed = await torFeed();
  expect(failed.last_outcome).toBe('failed');
  expect(Date.parse(failed.last_attempt_at!)).toBeGreaterThan(Date.parse(confirmed));

  ctx.feeds.routes.set('/tor', { body: torList(EXITS.slice(5)), etag: '"r2"' });
  await refresh('list without five');
  const memory = remembered();
  expect([...memory.keys()].sort()).toEqual(EXITS.slice(0, 5).sort());
  for (const seen of memory.values()) expect(seen).toBe(confirmed);
}, 120_000);
