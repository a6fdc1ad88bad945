// The /v1 route table answers as a scan in registration order would: an
// exact literal path is found without splitting it, but a pattern with
// :params registered earlier for the same method still wins, other spellings
// of a path (extra slashes) still match, and a path known for other methods
// only is 405 with those methods.
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/http/router.js';

const reply = (tag: string) => () => ({ status: 200, body: tag });
const tagOf = (m: ReturnType<Router['match']>) => (m.kind === 'found' ? (m.route.handler as unknown as () => { body: string })().body : m.kind);

describe('Router.match', () => {
  const r = new Router()
    .add('GET', '/v1/things/:id', reply('thing by id'))
    .add('GET', '/v1/things/export', reply('export'))
    .add('POST', '/v1/things/export', reply('export post'))
    .add('GET', '/v1/account', reply('account'))
    .add('PUT', '/v1/account', reply('account put'));

  it('hands a parameter with a malformed escape over as it came, for the handler to refuse', () => {
    const m = r.match('GET', '/v1/things/%ZZ');
    expect(m.kind === 'found' && m.params).toEqual({ id: '%ZZ' });
    expect(r.match('GET', '/v1/things/a%20b').kind === 'found' && (r.match('GET', '/v1/things/a%20b') as { params: unknown }).params).toEqual({ id: 'a b' });
  });
  it('finds a literal path by method', () => {
    expect(tagOf(r.match('GET', '/v1/account'))).toBe('account');
    expect(tagOf(r.match('PUT', '/v1/account'))).toBe('account put');
  });
  it('keeps registration order: an earlier :param pattern wins over a later literal', () => {
    const m = r.match('GET', '/v1/things/export');
    expect(tagOf(m)).toBe('thing by id');
    expect(m.kind === 'found' && m.params).toEqual({ id: 'export' });
    expect(tagOf(r.match('POST', '/v1/things/export'))).toBe('export post');
  });
  it('matches other spellings of a literal path', () => {
    expect(tagOf(r.match('GET', '/v1//account/'))).toBe('account');
  });
  it('answers 405 with the methods a path has', () => {
    expect(r.match('DELETE', '/v1/account')).toEqual({ kind: 'method', allow: ['GET', 'PUT'] });
    expect(r.match('GET', '/v1/nothing')).toEqual({ kind: 'none' });
  });
});
