// The database build runs on CPU time that serving leaves idle: a thread
// that loads the build worker module is put under SCHED_IDLE (policy 5 in
// /proc/thread-self/stat), and only that thread: the thread that started it
// keeps the normal policy (0).
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';

const policy = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
const workerModule = pathToFileURL(path.resolve('dist/ipdb/build.worker.js')).href;

it('a build worker thread runs under SCHED_IDLE, its parent does not', async () => {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    import(${JSON.stringify(workerModule)}).then(() => parentPort.postMessage(readFileSync('/proc/thread-self/stat', 'utf8')));
  `;
  const w = new Worker(code, { eval: true });
  const stat = await new Promise<string>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await w.terminate();
  expect(policy(stat)).toBe(5);
  expect(policy(readFileSync('/proc/thread-self/stat', 'utf8'))).toBe(0);
});
