// A thread stopped while it loads the addon must not take the process with
// it. A server thread, or the refresh's build thread, can be terminated at
// any moment of its start: by a start that fails (a cluster node refused by
// PostgreSQL exits while its server threads are still loading), or by a
// stop. node-addon-api, asked to throw into a thread that is shutting down,
// aborts the whole process ("FATAL ERROR: Error::ThrowAsJavaScriptException
// napi_throw") unless the addon is built with
// NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS (binding.gyp). Here a child
// process measures how long a thread takes to load the addon through its one
// loader (dist/ipdb/native.js; about 15 ms here), then starts 500 threads
// that load it and terminates each at 0.5 to 1.5 times that. Without the
// define, 5 runs of 5 aborted.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/ipdb-cache.js';

const LOADER = pathToFileURL(path.join(ROOT, 'dist/ipdb/native.js')).href;
const CHILD = `
import { Worker } from 'node:worker_threads';
const load = ${JSON.stringify(`import(${JSON.stringify(LOADER)})`)};
// How long a thread takes to have the addon loaded here, measured once.
const probe = new Worker(load + '.then(() => import("node:worker_threads")).then((w) => w.parentPort.postMessage(0))', { eval: true });
const t0 = performance.now();
await new Promise((resolve) => probe.once('message', resolve));
const took = performance.now() - t0;
await probe.terminate();
// Then threads stopped from half to one and a half times that into their start.
for (let i = 0; i < 500; i++) {
  const thread = new Worker(load, { eval: true });
  thread.on('error', () => {});
  await new Promise((resolve) => setTimeout(resolve, took * (0.5 + (i % 100) / 100)));
  await thread.terminate();
}
console.log('all stopped');
`;

describe('the addon loaded by a thread that is stopped meanwhile', () => {
  it('leaves the process running', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).not.toMatch(/FATAL ERROR/);
    expect(run.signal).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('all stopped');
  }, 90_000);
});
