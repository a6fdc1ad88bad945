// Opens trie files with the addon in a separate Node process, so that a test
// can see how that process ends: a crash shows up as a signal, a hang as the
// timeout, instead of taking the test runner's own process down with it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const addon = path.resolve(import.meta.dirname, '../../build/Release/splitguard_ipdb.node');

// CommonJS for `node -e`. argv: addon, verifyChecksum ("1"/"0"), files...
// Prints one JSON array: 'ok' or the error's code per file, in order. A file
// that opens is also looked up at a few addresses, so a bad view is walked.
const script = `
const { IpTrie } = require(process.argv[1]);
const verify = process.argv[2] === '1';
const probes = [[1, 0, 0, 1], [10, 20, 64, 9], [172, 16, 10, 7],
  [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]].map((a) => Uint8Array.from(a));
const out = [];
for (const file of process.argv.slice(3)) {
  try {
    const t = new IpTrie(file, verify);
    for (const p of probes) t.lookup(p);
    t.close();
    out.push('ok');
  } catch (e) {
    out.push(e.code ?? String(e));
  }
}
process.stdout.write(JSON.stringify(out));
`;

export interface ChildResult {
  /** Exit status; null when the process died of a signal or timed out. */
  status: number | null;
  signal: NodeJS.Signals | null;
  codes: string[] | null;
  stderr: string;
}

export function openInChild(files: string[], verifyChecksum: boolean, timeoutMs = 30_000): ChildResult {
  const r = spawnSync(process.execPath, ['-e', script, addon, verifyChecksum ? '1' : '0', ...files], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  let codes: string[] | null = null;
  try {
    codes = JSON.parse(r.stdout) as string[];
  } catch {
    codes = null;
  }
  return { status: r.status, signal: r.signal, codes, stderr: r.stderr };
}
