// The /v1 endpoint table answers as a scan in registration order would: an
// exact literal path is found without splitting it, but a pattern with
// :params registered earlier for the same method still wins, other spellings
// of a path (extra slashes) still match, and a path known for other methods
// only is 405 with those methods.
import { describe, expect, it } from 'vitest';
import { EndpointTable } from '../../src/http/endpoint-table.js';

const reply = (tag: string) => () => ({ status: 200, body: tag });
const tagOf = (m: ReturnType<EndpointTable['match']>) => (m.kind === 'found' ? (m.endpoint.handler as unknown as () => { body: string })().body : m.kind);

describe('EndpointTable.match', () => {
  const table = new EndpointTable()
    .add('GET', '/v1/things/:id', reply('thing by id'))
    .add('GET', '/v1/things/export', reply('export'))
    .add('POST', '/v1/things/export', reply('export post'))
    .add('GET', '/v1/account', reply('account'))
    .add('PUT', '/v1/account', reply('account put'));

  it('hands a parameter with a malformed escape over as it came, for the handler to refuse', () => {
    const m = table.match('GET', '/v1/things/%ZZ');
    expect(m.kind === 'found' && m.params).toEqual({ id: '%ZZ' });
    expect(table.match('GET', '/v1/things/a%20b').kind === 'found' && (table.match('GET', '/v1/things/a%20b') as { params: unknown }).params).toEqual({ id: 'a b' });
  });
  it('finds a literal path by method', () => {
    expect(tagOf(table.match('GET', '/v1/account'))).toBe('account');
    expect(tagOf(table.match('PUT', '/v1/account'))).toBe('account put');
  });
  it('keeps registration order: an earlier :param pattern wins over a later literal', () => {
    const m = table.match('GET', '/v1/things/export');
    expect(tagOf(m)).toBe('thing by id');
    expect(m.kind === 'found' && m.params).toEqual({ id: 'export' });
    expect(tagOf(table.match('POST', '/v1/things/export'))).toBe('export post');
  });
  it('matches other spellings of a literal path', () => {
    expect(tagOf(table.match('GET', '/v1//account/'))).toBe('account');
  });
  it('answers 405 with the methods a path has', () => {
    expect(table.match('DELETE', '/v1/account')).toEqual({ kind: 'method', allow: ['GET', 'PUT'] });
    expect(table.match('GET', '/v1/nothing')).toEqual({ kind: 'none' });
  });
});
