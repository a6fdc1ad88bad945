// /r/<code> for a code that does not exist, or that cannot be a code
// (invalid characters, wrong length), is 404 with the small HTML page and no
// Location; HEAD gets the same status without a body.
import { beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { createRoute, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: NO_RATE_LIMIT });
let code: string;
beforeAll(async () => {
  code = (await createRoute(sg.server, { intercept_level: 'off' })).code;
});

const notFound = async (path: string) => {
  const r = await request({ port: sg.server.ports[0], ca: sg.server.ca, path });
  expect(r.status, path).toBe(404);
  expect(r.headers['content-type'], path).toBe('text/html; charset=utf-8');
  expect(r.headers.location, path).toBeUndefined();
  expect(r.body, path).toMatch(/^<!doctype html>/i);
  expect(r.body, path).toContain('</html>');
  return r;
};

it('answers 404 with an HTML page for an unknown code', async () => {
  expect((await sg.client.visit(code)).status).toBe(302); // the server does serve real codes
  // A well-formed code that differs from the real one.
  const other = code.slice(0, 7) + (code[7] === 'z' ? 'y' : 'z');
  await notFound(`/r/${other}`);
  await notFound('/r/AAAAAAAA');
  await notFound(`/r/${other}?utm=1`);
});

it('answers 404 for codes with invalid characters or the wrong length', async () => {
  for (const bad of [
    code.slice(0, 7), // 7 characters
    `${code}x`, // 9
    `${code.slice(0, 7)}-`,
    `${code.slice(0, 7)}_`,
    `${code.slice(0, 7)}%21`,
    `${code.slice(0, 7)}%C3%A9`,
    encodeURIComponent(`${code.slice(0, 6)}..`),
  ]) {
    await notFound(`/r/${bad}`);
  }
});

it('answers HEAD for an unknown code with 404 and no body, and keeps serving', async () => {
  await notFound('/r/AAAAAAAA');
  for (let i = 0; i < 3; i++) {
    const v = await sg.client.visit('AAAAAAAA', { method: 'HEAD' });
    expect(v.status).toBe(404);
    expect(v.body).toBe('');
    expect(v.location).toBeUndefined();
    expect(v.headers['content-type']).toBe('text/html; charset=utf-8');
    // The length is not the GET's: see endHead in src/http/respond.ts.
    expect(v.headers['content-length']).toBe('0');
    expect(v.headers.connection).toBe('close');
  }
  // The same server still answers (on a new connection: the HEAD closed it).
  expect((await sg.client.visit(code)).status).toBe(302);
  expect((await sg.client.visit(code, { method: 'HEAD' })).status).toBe(302);
});
