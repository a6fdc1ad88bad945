// Shared benchmark helpers: statistics, machine facts, result files.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function summary(xs) {
  return { median: round(median(xs)), min: round(Math.min(...xs)), max: round(Math.max(...xs)), samples: xs.map(round) };
}

export function round(x, digits = 2) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    date: new Date().toISOString(),
  };
}

/** A seeded xorshift32 PRNG: benchmarks and tests see the same addresses every run. */
export function xorshift(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

export function writeResult(name, result) {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ name, machine: machine(), ...result }, null, 2)}\n`);
  return file;
}

export function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}
