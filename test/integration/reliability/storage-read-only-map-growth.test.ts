// The store's memory map must never need to grow once the file system has
// turned read-only. lmdb-js maps a new store small (128 KB) and maps it
// again, larger, from inside the write that first needs a page past the
// map. A kernel that has turned ext4 read-only (errors=remount-ro) refuses
// that mmap (EROFS), and lmdb-js then leaves the environment, which every
// thread of the process shares, with no map at all: the next read on any
// thread dereferences it and the process dies with SIGSEGV. The server hit
// this about once in a dozen runs of storage-read-only-running, when a
// visit flush during the fault was the write that grew the map.
//
// Here the write that needs the room is made on purpose: a store opened the
// way the server opens it (openStores), in a child process, a value of 1 MiB
// written after the fault, then a read. The write must fail (EROFS) and the
// read must answer; the child's exit says which.
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cannotMountExt4, type Ext4, ext4 } from '../../helpers/faults.js';
import { ROOT } from '../../helpers/ipdb-cache.js';

const skip = cannotMountExt4();
if (skip) console.warn(`skipped: ${skip}`);

// The child: opens the store, writes a little, waits for the fault, then
// writes 1 MiB (more than any map lmdb-js starts with) and reads back.
const CHILD = `
import { openStores } from ${JSON.stringify(path.join(ROOT, 'dist/store/db.js'))};
// The failed commit's own promises (store/commit-errors.ts does this in the server).
process.on('unhandledRejection', () => {});
const stores = openStores(process.argv[2]);
await stores.meta.put('before', Buffer.alloc(8192, 1));
process.send('ready');
process.once('message', async () => {
  let write = 'stored';
  try {
    await stores.meta.put('big', Buffer.alloc(1 << 20, 2));
  } catch (err) {
    write = String(err.message);
  }
  const before = stores.meta.get('before');
  process.send({ write, read: before ? before.length : null });
  process.exit(0);
});
`;

describe.skipIf(skip !== null)('a store on a file system that turns read-only', () => {
  let fs: Ext4 | undefined;
  afterAll(() => fs?.unmount());

  it('refuses a write that needs a larger map and goes on reading', async () => {
    fs = ext4(64);
    const script = path.join(fs.dir, 'child.mjs');
    writeFileSync(script, CHILD);
    // lmdb-js prints the refused page write to stderr: kept, and shown only if the child fails.
    const child = fork(script, [path.join(fs.dir, 'data')], { stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const answer = new Promise<{ write: string; read: number | null }>((resolve) => child.on('message', (m) => typeof m === 'object' && resolve(m as { write: string; read: number | null })));
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      void exited.then((e) => reject(new Error(`the child ended before it was ready: ${JSON.stringify(e)}`)));
    });
    fs.fail('splitguard map growth test');
    expect(fs.options()).toMatch(/emergency_ro|(^|,)ro(,|$)/);
    child.send('go');
    const outcome = await Promise.race([answer, exited]);
    // Before the fix: { code: null, signal: 'SIGSEGV' }.
    expect(outcome, stderr).toEqual({ write: expect.stringMatching(/Commit failed|Read-only/), read: 8192 });
    expect(await exited, stderr).toEqual({ code: 0, signal: null });
  });
});
