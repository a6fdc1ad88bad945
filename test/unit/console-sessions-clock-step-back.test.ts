// A console session made or used while the wall clock ran ahead (then
// stepped back: NTP, a restored VM) is refused instead of outliving its idle
// and absolute limits by the length of the step, and not deleted (the clock
// behind may be one node's alone); a session stamped within CLOCK_SKEW_MS
// ahead (another node's clock, in cluster mode) goes on.
import { beforeAll, expect, it } from 'vitest';
import { storedUser, useLocalStores } from '../helpers/local-stores.js';
import { CLOCK_SKEW_MS } from '../../src/clock.js';
import { Sessions } from '../../src/console/sessions.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';
import { SessionStore } from '../../src/store/sessions-store.js';

const local = useLocalStores('splitguard-sessions-clock-');
let store: SessionStore;
beforeAll(() => {
  store = new SessionStore(local.stores, new LmdbBackend(local.stores));
});

const T = Date.UTC(2026, 10, 27, 12, 0, 0);
const DAY = 86_400_000;

it('refuses a session stamped a day ahead of the clock, and keeps one stamped within the skew allowed', async () => {
  const sessions = new Sessions(store, 30);
  const ahead = await sessions.create(storedUser(local.stores, 'ahead@example.com'), T + DAY);
  expect(await sessions.find(ahead.id, T)).toBeNull();
  // Refused, not deleted: a clock that has caught up finds it, within its limits.
  expect((await sessions.find(ahead.id, T + DAY + 60_000))?.session.email).toBe('ahead@example.com');

  const skewed = await sessions.create(storedUser(local.stores, 'skewed@example.com'), T + CLOCK_SKEW_MS);
  expect((await sessions.find(skewed.id, T))?.session.email).toBe('skewed@example.com');
});
