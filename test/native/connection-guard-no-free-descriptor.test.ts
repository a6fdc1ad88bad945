// The guard matters most when the process has no descriptor left (accept
// then fails with EMFILE), so listing and shutting down must need none: in a
// child process whose every descriptor is taken, list() still finds the
// connection and shutdown() still ends it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { fileLimitWrapper } from '../helpers/server.js';

const addon = path.resolve(import.meta.dirname, '../../build/Release/splitguard_ipdb.node');

// CommonJS for `node -e`; argv: addon. Prints one JSON object.
const script = `
const net = require('node:net');
const fs = require('node:fs');
const { ConnectionGuard } = require(process.argv[1]);
const guard = new ConnectionGuard();
const server = net.createServer((s) => s.on('error', () => {}));
server.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  const client = net.connect({ port, host: '127.0.0.1' }, () => {
    setTimeout(() => {
      const filler = [];
      let emfile = false;
      try {
        for (;;) filler.push(fs.openSync('/dev/null', 'r'));
      } catch (e) {
        emfile = e.code === 'EMFILE';
      }
      const out = { emfile, filled: filler.length };
      try {
        const list = guard.list([port]);
        out.listed = list.length;
        out.shut = guard.shutdown(list.map((c) => c.inode));
      } catch (e) {
        out.error = e.code;
      }
      let done = false;
      const finish = (how) => {
        if (done) return;
        done = true;
        out.client = how;
        for (const fd of filler) fs.closeSync(fd);
        process.stdout.write(JSON.stringify(out));
        process.exit(0);
      };
      client.on('end', () => finish('end'));
      client.on('error', (e) => finish(e.code));
      setTimeout(() => finish('still open'), 3000);
    }, 100);
  });
});
`;

it('lists and shuts down a connection with every descriptor taken', () => {
  const args = ['-e', script, addon];
  const [command, ...wrapper] = fileLimitWrapper(128);
  const r = spawnSync(command, [...wrapper, process.execPath, ...args], { encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(out.emfile).toBe(true);
  expect(out.filled).toBeGreaterThan(0);
  expect(out.error).toBeUndefined();
  expect(out.listed).toBe(1);
  expect(out.shut).toBe(1);
  expect(['end', 'ECONNRESET']).toContain(out.client);
});
