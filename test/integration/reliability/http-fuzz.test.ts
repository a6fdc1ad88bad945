// The short version of the HTTP fuzzer (test/stress/http-fuzz.js): 2,500
// requests over raw TLS sockets to the real server, with a canary, slow-loris
// clients and the rate-limit probes running, in all four client shapes at
// their default shares (single, pipelined, pipelined and never read,
// aborted). The script judges every answer against its case and exits
// non-zero on any violation; this test runs it and checks its report
// category by category and shape by shape. The long runs and their figures
// are in docs/reliability.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT } from '../../helpers/ipdb-cache.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'splitguard-fuzz-ci-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Report {
  total: number;
  violations: number;
  violationExamples: unknown[];
  counts: Record<string, Record<string, number>>;
  probes: Record<string, { ok: boolean }>;
  canary: { healthz: { n: number; max: number }; redirect: { n: number; max: number }; failures: number };
  loris: { connections: number; closedByServer: number; answered: number };
  shapes: {
    single: { cases: number; judged: number; violations: number };
    pipelined: { connections: number; cases: number; judged: number; violations: number; endings: Record<string, number> };
    unread: { connections: number; cases: number; copies: number; endings: Record<string, number> };
    aborted: { cases: number; modes: Record<string, number> };
  };
  lostToUwsClose: { pipelines: number; answers: number; byCategory: Record<string, number>; byTrigger: Record<string, number>; notRunBehind: number };
  server: { aliveAtEnd: boolean; healthzAtEnd: number; api500: number; exitCode: number; logEvents: Record<string, unknown> };
  failures: string[];
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'test', 'stress', 'http-fuzz.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** Outcomes allowed per category, as the report names them ("<status> <code>", or the refusals). */
const ALLOWED: Record<string, RegExp> = {
  valid: /^(200|302)$/,
  unauthorized: /^401 unauthorized$/,
  not_found: /^404( not_found)?$/,
  method_not_allowed: /^405( method_not_allowed)?$/, // HEAD answers have no body, so no code
  isolation: /^(404 not_found|200)$/,
  invalid_parameter: /^(400 invalid_parameter|200)$/, // 200: a parameter name that decodes to a known one
  content_type: /^400 invalid_parameter$/,
  invalid_json: /^400 invalid_json$/,
  duplicate_keys: /^(200|400 invalid_parameter|400 invalid_json)$/,
  big_json: /^(400 invalid_parameter|413 payload_too_large)$/,
  payload_too_large: /^413 payload_too_large$/,
  invalid_utf8: /^(200|404|400 invalid_json|400 invalid_parameter|401 unauthorized)$/,
  malformed_http: /^(closed, no answer|no answer \(ignored\)|4\d\d( \w+)?)$/,
  oversized_headers: /^(closed, no answer|no answer \(ignored\)|4\d\d( \w+)?)$/,
};

it('2,500 fuzzed requests: every answer as its case demands, the canary served throughout, the server clean', async () => {
  const file = path.join(scratch, 'report.json');
  const { code, output } = await run(['--requests', '2500', '--concurrency', '32', '--loris', '30', '--canary-max-ms', '5000', '--seed', String(Date.now() % 100_000), '--json', file]);
  expect(code, output).toBe(0);
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  expect(report.failures, output).toEqual([]);
  expect(report.total).toBe(2500);
  expect(report.violations, JSON.stringify(report.violationExamples, null, 2)).toBe(0);

  for (const [category, allowed] of Object.entries(ALLOWED)) {
    const outcomes = report.counts[category] ?? {};
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0), `${category} was exercised`).toBeGreaterThan(0);
    for (const outcome of Object.keys(outcomes)) expect(outcome, `${category}: ${JSON.stringify(outcomes)}`).toMatch(allowed);
  }
  // A 429 only from the probes, never from the fuzz traffic itself.
  for (const outcomes of Object.values(report.counts)) for (const outcome of Object.keys(outcomes)) expect(outcome).not.toMatch(/^429/);
  for (const [name, probe] of Object.entries(report.probes)) expect(probe.ok, `${name}: ${JSON.stringify(probe)}`).toBe(true);

  // Every shape ran, and none had a violation.
  const { single, pipelined, unread, aborted } = report.shapes;
  expect(single.judged).toBe(single.cases);
  expect(single.violations).toBe(0);
  expect(pipelined.connections).toBeGreaterThan(0);
  expect(pipelined.judged).toBeGreaterThan(0);
  expect(pipelined.violations).toBe(0);
  expect(pipelined.endings.complete, JSON.stringify(pipelined.endings)).toBeGreaterThan(0);
  expect(pipelined.endings.violation).toBeUndefined();
  expect(unread.connections).toBeGreaterThan(0);
  expect(unread.copies).toBeGreaterThanOrEqual(unread.connections);
  expect(aborted.cases).toBeGreaterThan(0);
  for (const shape of Object.values(report.shapes) as { violations?: number }[]) expect(shape.violations ?? 0).toBe(0);
  // Answers lost to uWS 20.30's close (pipelines only): counted, by category and by what closed.
  const lost = report.lostToUwsClose;
  expect(lost.answers).toBeGreaterThanOrEqual(0);
  expect(Object.values(lost.byCategory).reduce((a, b) => a + b, 0)).toBe(lost.answers);
  expect(Object.values(lost.byTrigger).reduce((a, b) => a + b, 0)).toBe(lost.pipelines);
  for (const trigger of Object.keys(lost.byTrigger)) expect(trigger).toMatch(/^(malformed request|framing refused|behind an asynchronous answer)$/);

  expect(report.canary.failures).toBe(0);
  expect(report.canary.healthz.n).toBeGreaterThan(50);
  expect(report.canary.redirect.n).toBeGreaterThan(50);
  expect(report.loris.connections).toBeGreaterThanOrEqual(30);
  expect(report.loris.answered).toBe(0);
  expect(report.server).toMatchObject({ aliveAtEnd: true, healthzAtEnd: 200, api500: 0, exitCode: 0 });
  expect(report.server.logEvents.unhandled_error).toBeUndefined();
}, 900_000);
