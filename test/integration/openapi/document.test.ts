// docs/openapi.yaml on its own: every $ref resolves, every schema compiles,
// its error codes are exactly the API's codes in src/errors.ts, each with
// its HTTP status, and every operation it documents is checked by a test in
// this folder. No server.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { catalogue, CONSOLE_CODES, sentAsIs } from '../../../src/errors.js';
import { at, deref, doc, type Json, type Obj, validatorAt } from '../../helpers/openapi.js';

it('resolves every local $ref', () => {
  const refs: string[] = [];
  const walk = (n: Json) => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n !== null && typeof n === 'object') {
      for (const [k, v] of Object.entries(n)) {
        if (k === '$ref' && typeof v === 'string') refs.push(v);
        else walk(v);
      }
    }
  };
  walk(doc);
  expect(refs.length).toBeGreaterThan(10);
  for (const ref of refs) expect(at(ref.slice(1)), ref).toBeDefined();
});

it('lists exactly the API error codes of src/errors.ts, each with its HTTP status', () => {
  const schema = deref('/components/schemas/ErrorCode').node;
  // The catalogue also holds codes that never reach an API body: the command
  // line's (cli_*), the web console's (CONSOLE_CODES), and every server-side
  // one (storage_unavailable, ipdb_*): publicError sends any error whose
  // status is not sentAsIs as the one fixed `internal` body and logs the real code.
  const apiCodes = Object.keys(catalogue).filter((c) => {
    const { status } = catalogue[c as keyof typeof catalogue];
    return !c.startsWith('cli_') && !(CONSOLE_CODES as string[]).includes(c) && (sentAsIs(status) || c === 'internal');
  });
  expect([...(schema.enum as string[])].sort()).toEqual(apiCodes.sort());
  const statuses = schema['x-http-status'] as Record<string, number>;
  for (const code of apiCodes) expect(statuses[code], code).toBe(catalogue[code as keyof typeof catalogue].status);
});

it('compiles every schema it declares', () => {
  for (const name of Object.keys(doc.components && (doc.components as Obj).schemas ? ((doc.components as Obj).schemas as Obj) : {})) {
    expect(() => validatorAt(`/components/schemas/${name}`), name).not.toThrow();
  }
});

it('has every documented operation checked against a live answer by a test in this folder', () => {
  const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];
  const documented = Object.entries(doc.paths as Obj).flatMap(([path, item]) =>
    Object.keys(item as Obj).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`),
  );
  // expectReply(reply, '/v1/routes/{id}', 'PUT', ...) and expectOperation(reply, path, method)
  // name the operation whose documented answer the reply is checked against.
  const checked = new Set<string>();
  const folder = new URL('.', import.meta.url);
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.test.ts'))) {
    const text = readFileSync(new URL(file, folder), 'utf8');
    for (const m of text.matchAll(/expect(?:Reply|Operation)\([^;]*?, '(\/[^']*)', '([A-Z]+)'/g)) checked.add(`${m[2]} ${m[1]}`);
  }
  expect(documented.length).toBeGreaterThan(10);
  expect(documented.filter((op) => !checked.has(op))).toEqual([]);
});
