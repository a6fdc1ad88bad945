// A HOST the machine does not have (EADDRNOTAVAIL; EACCES for a low port
// without root reads the same way) stops `splitguard serve` with one line
// naming the address, the port and the errno, not a stack trace.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { freePort } from '../../helpers/ports.js';
import { tempDataDir } from '../../helpers/server.js';

const dataDir = tempDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('exits 1 with listen_failed\'s one line when HOST is not an address of this machine', async () => {
  const port = await freePort();
  // 192.0.2.1: TEST-NET-1 (RFC 5737), assigned to no machine.
  const r = await runCli(['serve'], dataDir, { PORT: String(port), HOST: '192.0.2.1', SPLITGUARD_THREADS: '1' }, 20_000);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stderr).toBe(`splitguard: cannot listen on the address: 192.0.2.1:${port} (EADDRNOTAVAIL)\n`);
  expect(r.stderr).not.toContain('    at ');
});
