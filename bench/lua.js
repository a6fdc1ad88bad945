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
