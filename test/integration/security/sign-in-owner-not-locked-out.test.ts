// Wrong passwords for admin@localhost from many addresses do not lock the
// owner out: every address has its own count for the email, and failures of
// the email from everywhere only slow its sign-ins down (EMAIL_DELAY_MS).
// Before, five wrong passwords a minute from anywhere locked the real admin
// out of the console indefinitely.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signInRequest } from '../../helpers/console-session.js';
import { readBootstrap, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it('lets the owner in from their own address while strangers fail elsewhere', async () => {
  const boot = readBootstrap(server.dataDir);
  // Four strangers side by side, five wrong passwords each; then each is
  // refused, even with the right password.
  await Promise.all(
    [1, 2, 3, 4].map(async (s) => {
      const localAddress = `127.0.3.${s}`;
      for (let i = 0; i < 5; i++) expect((await signInRequest(server, boot.admin_email, `guess-${s}-${i}`, { localAddress })).status).toBe(401);
      expect((await signInRequest(server, boot.admin_email, boot.admin_password, { localAddress })).status).toBe(429);
    }),
  );
  const started = Date.now();
  const owner = await signInRequest(server, boot.admin_email, boot.admin_password, { localAddress: '127.0.0.1' });
  expect(owner.status).toBe(200);
  expect(owner.json).toMatchObject({ email: boot.admin_email, admin: true });
  // Slowed, not refused: the email has failed 20 times this minute.
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
});
