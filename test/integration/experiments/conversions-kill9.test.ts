// An acknowledged conversion survives kill -9: while 32 clients post
// conversions as fast as they can, the server is killed with SIGKILL at a
// random moment, three times; after each restart on the same data
// directory, every conversion that had been answered 202 is still there
// (posting it again answers 200 duplicate) and the route's lifetime count is
// at least the number acknowledged (requests cut off by the kill may have
// been committed without their answer arriving).
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT, RedirectClient, inParallel, visitorId } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const dataDir = tempDataDir();
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps every acknowledged conversion across three kill -9 restarts', async () => {
  server = await startServer({ dataDir, env: NO_RATE_LIMIT });
  const route = (await api(server, 'POST', '/v1/routes', {
    name: 'crash', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/', append_click_id: true, intercept_level: 'off',
  })).json;
  const client = new RedirectClient(server);
  const tokens = await inParallel(Array.from({ length: 200 }, visitorId), 16, async (visitor) => {
    const v = await client.visit(route.code, { visitor });
    return /sg_cid=([A-Za-z0-9_-]+)/.exec(v.location!)![1];
  });
  client.close();

  const acknowledged: { click_id: string; goal: string }[] = [];
  // 3 cycles of at most 6 goals stay under a route's 20 (GOAL_LIMIT) however
  // fast the machine: past 1,200 conversions in a cycle the posts repeat
  // pairs already sent and are answered 200 duplicate.
  const GOALS_PER_CYCLE = 6;
  for (let cycle = 0; cycle < 3; cycle++) {
    const s = server!;
    let n = 0;
    let running = true;
    const posters = Array.from({ length: 32 }, async () => {
      while (running) {
        const body = { click_id: tokens[n % tokens.length], goal: `c${cycle}-${Math.min(GOALS_PER_CYCLE - 1, Math.floor(n / tokens.length))}` };
        n++;
        try {
          const r = await api(s, 'POST', '/v1/conversions', body);
          if (r.status === 202) acknowledged.push(body);
          else if (r.status !== 200) throw new Error(`answered ${r.status}: ${r.body}`);
        } catch (err) {
          if (running) throw err;
          return; // the kill cut this request off: not acknowledged
        }
      }
    });
    await new Promise((r) => setTimeout(r, 600 + Math.random() * 900));
    const before = acknowledged.length;
    running = false;
    expect(await s.stop('SIGKILL')).toBeNull();
    await Promise.all(posters);
    expect(before).toBeGreaterThan(0);

    server = await startServer({ dataDir, env: NO_RATE_LIMIT });
    const detail = (await api(server, 'GET', `/v1/routes/${route.id}`)).json;
    const lifetime = detail.experiment.lifetime;
    const stored = lifetime.goals.reduce((sum: number, g: string) => sum + lifetime.variants.reduce((s2: number, v: any) => s2 + v.conversions[g].count, 0), 0);
    expect(stored).toBeGreaterThanOrEqual(acknowledged.length);
    // Every acknowledged one is there: posting it again is a duplicate.
    const again = await inParallel(acknowledged, 16, (body) => api(server!, 'POST', '/v1/conversions', body));
    again.forEach((r, i) => expect(r.json?.duplicate, JSON.stringify(acknowledged[i])).toBe(true));
  }
});
