// npm run bench: every scenario in turn (each with its baselines in the same
// run), then one Markdown table and one SVG chart of requests/s and CPU µs
// per request, splitguard beside each baseline (bench/results/summary.md,
// bench/results/summary.svg; the README shows both).
//   node bench/run.js [scenario ...]     default: all
//   node bench/run.js --no-run           only the table and chart, from the results there are
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, resultsDir } from './lib.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SCENARIOS = ['lookup', 'classify', 'server', 'redirect', 'ip-check', 'api', 'swap', 'clicks', 'startup'];

const args = process.argv.slice(2);
const chosen = args.includes('--no-run') ? [] : args.length ? args : SCENARIOS;
for (const name of chosen) {
  if (!SCENARIOS.includes(name)) throw new Error(`unknown scenario "${name}"; one of ${SCENARIOS.join(', ')}`);
  const t0 = Date.now();
  process.stdout.write(`\n## ${name}\n`);
  execFileSync(process.execPath, [path.join(here, `${name}.js`)], { stdio: 'inherit' });
  process.stdout.write(`(${Math.round((Date.now() - t0) / 1000)} s)\n`);
}

const read = (name) => {
  const file = path.join(resultsDir, `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
};

// The day a scenario's results were measured: a scenario rerun alone (npm
// run bench:<name>, then --no-run) keeps the others' days, which the tables show.
const dayOf = (r) => r?.machine?.date?.slice(0, 10) ?? '?';

// One row per (scenario, arm) measured under load.
const rows = [];
for (const name of ['redirect', 'server', 'ip-check', 'api']) {
  const r = read(name);
  if (!r?.arms) continue;
  for (const [arm, s] of Object.entries(r.arms)) {
    rows.push({ scenario: name, arm, rps: s.rps.median, p99: s.p99ms.median, cpu: s.cpuUsPerRequest.median, day: dayOf(r) });
  }
}

const goalRows = [];
for (const name of SCENARIOS) {
  const r = read(name);
  const goals = r?.goal ?? r?.goals; // lookup and classify name them "goals"
  if (!goals) continue;
  for (const [k, v] of Object.entries(goals)) {
    if (v && typeof v === 'object' && 'goal' in v) goalRows.push([name, k, v.goal, v.value, dayOf(r)]);
    else if (typeof v === 'boolean') goalRows.push([name, k, 'true', String(v), dayOf(r)]);
  }
}

const m = machine();
const days = [...new Set([...rows.map((r) => r.day), ...goalRows.map((g) => g[4])])].sort();
const span = days.length > 1 ? `${days[0]} to ${days[days.length - 1]}` : days[0] ?? m.date.slice(0, 10);
const md = [
  `Measured ${span} (each row's day in its last column) on ${m.cpu}, ${m.cores} cores, Node ${m.node}; server pinned to CPU 0, load generator (wrk) to CPU 1; medians of interleaved runs.`,
  '',
  '| scenario | arm | req/s | p99 ms | CPU µs/req | measured |',
  '| --- | --- | ---: | ---: | ---: | --- |',
  ...rows.map((r) => `| ${r.scenario} | ${r.arm} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.p99} | ${r.cpu} | ${r.day} |`),
  '',
  '| scenario | figure | goal | value | measured |',
  '| --- | --- | --- | --- | --- |',
  ...goalRows.map((g) => `| ${g.join(' | ')} |`),
  '',
].join('\n');
writeFileSync(path.join(resultsDir, 'summary.md'), md);

// The chart: two panels of horizontal bars (requests/s, CPU µs per request),
// one bar per (scenario, arm), splitguard's arms dark, baselines light.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const isOurs = (arm) => !/bare|node:https|fastify/.test(arm);
const barH = 16;
const gap = 6;
const labelW = 300;
const panelW = 330;
const height = 60 + rows.length * (barH + gap);
const maxRps = Math.max(1, ...rows.map((r) => r.rps));
const maxCpu = Math.max(1, ...rows.map((r) => r.cpu));
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${labelW + 2 * panelW + 40}" height="${height}" font-family="sans-serif" font-size="12">`,
  '<rect width="100%" height="100%" fill="#fff"/>',
  `<text x="${labelW}" y="20" font-weight="bold">requests/s (higher is better)</text>`,
  `<text x="${labelW + panelW + 20}" y="20" font-weight="bold">CPU µs per request (lower is better)</text>`,
  ...rows.flatMap((r, i) => {
    const y = 36 + i * (barH + gap);
    const w1 = Math.max(1, (r.rps / maxRps) * (panelW - 70));
    const w2 = Math.max(1, (r.cpu / maxCpu) * (panelW - 70));
    const fill = isOurs(r.arm) ? '#1f4e79' : '#9dc3e6';
    return [
      `<text x="${labelW - 8}" y="${y + 12}" text-anchor="end">${esc(`${r.scenario}: ${r.arm}`)}</text>`,
      `<rect x="${labelW}" y="${y}" width="${w1.toFixed(1)}" height="${barH}" fill="${fill}"/>`,
      `<text x="${labelW + w1 + 4}" y="${y + 12}">${Math.round(r.rps).toLocaleString('en-US')}</text>`,
      `<rect x="${labelW + panelW + 20}" y="${y}" width="${w2.toFixed(1)}" height="${barH}" fill="${fill}"/>`,
      `<text x="${labelW + panelW + 24 + w2}" y="${y + 12}">${r.cpu}</text>`,
    ];
  }),
  `<text x="10" y="${height - 8}" fill="#555">${esc(`${m.cpu}, Node ${m.node}, ${span}. Dark: splitguard; light: baselines.`)}</text>`,
  '</svg>',
].join('\n');
writeFileSync(path.join(resultsDir, 'summary.svg'), `${svg}\n`);
console.log(`\n${md}\nwrote ${path.join(resultsDir, 'summary.md')} and summary.svg`);
