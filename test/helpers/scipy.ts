// The statistics' independent reference: test/helpers/scipy-reference.py run
// by a Python that has SciPy and mpmath, the one on PATH or Debian's
// (/usr/bin/python3 with python3-scipy and python3-mpmath, which .ci/run
// installs when neither has them). Without one the comparisons are skipped
// on a developer's machine; under CI (CI set) the test file fails instead,
// so that the checks against SciPy can never pass by not running.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const SCRIPT = path.join(import.meta.dirname, 'scipy-reference.py');

/** The first interpreter that imports scipy and mpmath, or null. */
const PYTHON = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', 'import scipy, mpmath'], { stdio: 'ignore' }).status === 0) ?? null;
if (PYTHON === null && process.env.CI) {
  throw new Error('the statistics reference needs python3 with scipy and mpmath (apt-get install python3-scipy python3-mpmath)');
}

export const hasScipy = PYTHON !== null;

/** The reference's answers to `cases` (scipy-reference.py says each kind), in order. */
export function scipyReference(cases: readonly unknown[]): unknown[] {
  if (PYTHON === null) throw new Error('no python3 with scipy and mpmath');
  return JSON.parse(execFileSync(PYTHON, [SCRIPT], { input: JSON.stringify(cases), maxBuffer: 1 << 24 }).toString()) as unknown[];
}
