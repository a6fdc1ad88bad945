// /metrics reports the click-flush lag (contract §2): seconds since the
// server thread that flushed longest ago last wrote its clicks to the store.
// About the flush interval (1 s) while the store takes them; growing while it
// cannot (here PostgreSQL stopped, the clicks kept in memory meanwhile), and
// back down once the kept clicks are written.
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT, threads: 2 });

const lag = async (): Promise<number> => {
  const node = cluster.node(0);
  const text = (await call(node.ports[1], node.ca, 'GET', '/metrics')).body;
  const line = text.split('\n').find((l) => l.startsWith('splitguard_click_flush_lag_seconds '));
  if (!line) throw new Error(`no click-flush lag in:\n${text}`);
  expect(text).toContain('# TYPE splitguard_click_flush_lag_seconds gauge');
  return Number(line.split(' ')[1]);
};

it.skipIf(cluster.skip)('reports the click-flush lag, growing while PostgreSQL is away and back once it returns', async () => {
  expect(await lag()).toBeLessThan(2.5);
  cluster.pg.stop();
  try {
    await waitUntil(lag, (s) => s >= 4, 15_000, 250);
  } finally {
    cluster.pg.start();
  }
  await waitUntil(lag, (s) => s < 2.5, 20_000, 250);
});
