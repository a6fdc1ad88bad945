// wrk Lua scripts for requests with a method and a body.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-bench-lua-'));
let n = 0;

/** A wrk script sending every request as `method` with a JSON body and headers. */
export function luaScript(method, body, headers = {}) {
  const file = path.join(dir, `s${n++}.lua`);
  const lines = [`wrk.method = ${JSON.stringify(method)}`];
  if (body !== undefined) lines.push(`wrk.body = ${JSON.stringify(JSON.stringify(body))}`, 'wrk.headers["Content-Type"] = "application/json"');
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const luaString = (s) => {
  if (!/^[\x20-\x7e]*$/.test(s)) throw new Error(`not printable ASCII, not sent as a header: ${JSON.stringify(s)}`);
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
};

/**
 * A wrk script sending GET requests whose headers cycle through `headerSets`
 * (objects of name -> value), one set per request, in order. The requests are
 * formatted once per wrk thread in init(), so request() only hands back a
 * prepared string: wrk's own cost per request stays that of a static request.
 */
export function luaRotation(headerSets) {
  if (headerSets.length === 0) throw new Error('luaRotation needs at least one header set');
  const file = path.join(dir, `s${n++}.lua`);
  const sets = headerSets.map((h) => `  {${Object.entries(h).map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`).join(', ')}},`);
  writeFileSync(file, [
    'local sets = {',
    ...sets,
    '}',
    'local reqs = {}',
    'local at = 0',
    'function init(args)',
    '  for i, h in ipairs(sets) do',
    '    h["Host"] = wrk.headers["Host"]',
    '    reqs[i] = wrk.format("GET", nil, h)',
    '  end',
    'end',
    'function request()',
    '  at = at % #reqs + 1',
    '  return reqs[at]',
    'end',
    '',
  ].join('\n'));
  return file;
}
