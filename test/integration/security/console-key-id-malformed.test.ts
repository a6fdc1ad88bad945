// A console key path whose id is not a key id is 404 not_found, whatever its
// length: an id of 4,093 characters reached the store's lookup, past LMDB's
// key size, and answered 500 internal (with an unhandled_error logged).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleSession, consoleSession } from '../../helpers/console-session.js';
import { readBootstrap, startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let session: ConsoleSession;
beforeAll(async () => {
  server = await startServer();
  const boot = readBootstrap(server.dataDir);
  session = await consoleSession(server, boot.admin_email, boot.admin_password);
});
afterAll(() => server?.close());

it.each([
  ['POST', 'a 4,093-character id', 'a'.repeat(4093), '/reset'],
  ['DELETE', 'a 4,093-character id', 'a'.repeat(4093), ''],
  ['POST', 'one hex digit too many', 'key_0123456789abcdef0', '/reset'],
  ['DELETE', 'capitals', 'KEY_0123456789ABCDEF', ''],
])('%s /keys/<%s> is 404', async (method, _label, id, rest) => {
  const res = await session.call(method, `/keys/${id}${rest}`);
  expect(res.status, res.body).toBe(404);
  expect(res.json).toMatchObject({ code: 'not_found', field: 'id' });
  expect(server.logs().filter((l) => l.event === 'unhandled_error')).toEqual([]);
});
