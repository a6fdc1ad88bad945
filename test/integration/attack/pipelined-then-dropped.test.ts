// A client pipelines hundreds of requests in one write, reads nothing, then
// resets the connection, closes it, or half-closes it. Before the fix one
// such connection to /console/app.js aborted the whole process (uWS:
// "Returning from a request handler without responding or attaching an
// abort handler is forbidden!"); see Exchange in src/http/respond.ts. Every
// endpoint family, every ending; after each the server must still answer on
// every thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAnswering, type Ending, endpointFamilies, type Family, pipelineAndDrop } from '../../helpers/attack.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let families: Family[];

beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  families = await endpointFamilies(server);
});
afterAll(() => server?.close());

/** Enough copies that the answers overflow the socket buffers several times over. */
const COPIES = 400;
const ENDINGS: Ending[] = ['rst', 'fin', 'half-close'];

describe('pipelined requests, never read, then the connection ends', () => {
  it('leaves the server answering after every endpoint family and every ending', async () => {
    for (const family of families) {
      for (const ending of ENDINGS) {
        await Promise.all(server.ports.map((port) => pipelineAndDrop(port, family.request, COPIES, ending)));
        await assertAnswering(server).catch((err: Error) => {
          throw new Error(`after "${family.name}" ended by ${ending}: ${err.message}`);
        });
      }
    }
    expect(server.process.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/forbidden|terminate called/);
  });
});
