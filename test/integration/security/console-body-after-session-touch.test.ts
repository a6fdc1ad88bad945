// A console change whose body arrives with its head, made when the session
// is due for its periodic touch (a storage write the session lookup awaits),
// is answered. Before, the body reader was attached only after that write:
// uWS had already dropped the body, the request was never answered and it
// held a graceful stop for the whole in-flight deadline. Found by the attack
// review of 2026-11-27 (docs/reliability.md, "Under attack").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { consoleSession } from '../../helpers/console-session.js';
import { rawRequest } from '../../helpers/raw-http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

// Idle timeout 0.2 min: a session is touched once a quarter of it (3 s) has passed since its last use.
const TOUCH_AFTER_MS = 3_000;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { SPLITGUARD_SESSION_IDLE_MINUTES: '0.2' } });
});
afterAll(() => server?.close());

it('answers a change sent in one write when its session is due for a touch', async () => {
  const acct = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'touch'], server.dataDir);
  await runCliJson(['user', 'create', '--email', 'touch@x.y', '--password', 'longenough1', '--account', String(acct.account_id)], server.dataDir);
  const session = await consoleSession(server, 'touch@x.y', 'longenough1');
  const send = (name: string) => {
    const body = JSON.stringify({ name });
    return rawRequest(
      `POST /console/api/keys HTTP/1.1\r\nHost: localhost\r\nCookie: ${session.cookie}\r\nX-CSRF-Token: ${session.csrf}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      { port: server.ports[0], ca: server.ca, timeoutMs: 8_000 },
    );
  };
  // Fresh session: no touch, the lookup does not wait for storage.
  const fresh = await send('fresh');
  expect(fresh.outcome).toBe('answered');
  expect(fresh.status, fresh.body).toBe(201);
  for (const name of ['after a pause', 'after another']) {
    await new Promise((r) => setTimeout(r, TOUCH_AFTER_MS + 500));
    const touched = await send(name);
    expect(touched.outcome, `${name}: ${touched.raw}`).toBe('answered');
    expect(touched.status, touched.body).toBe(201);
    expect(JSON.parse(touched.body).name).toBe(name);
  }
});
