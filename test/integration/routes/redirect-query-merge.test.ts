// The short link's own query string is merged into the page URL: appended
// with "?" to a page without a query, with "&" after an existing one, and
// before a #fragment. Without a query the Location is the page exactly.
import { expect, it } from 'vitest';
import { createRoute, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: NO_RATE_LIMIT });

const cases: [string, string, string][] = [
  // page, short link query, expected Location
  ['https://a.example.com/landing', 'utm=1&x=2', 'https://a.example.com/landing?utm=1&x=2'],
  ['https://a.example.com/landing?src=sg', 'utm=1&x=2', 'https://a.example.com/landing?src=sg&utm=1&x=2'],
  ['https://a.example.com/landing#offer', 'utm=1&x=2', 'https://a.example.com/landing?utm=1&x=2#offer'],
  ['https://a.example.com/landing?src=sg#offer', 'utm=1&x=2', 'https://a.example.com/landing?src=sg&utm=1&x=2#offer'],
  ['https://a.example.com/', 'q=a%20b&c=%26', 'https://a.example.com/?q=a%20b&c=%26'],
  ['https://a.example.com/landing?src=sg#offer', '', 'https://a.example.com/landing?src=sg#offer'],
];

it.each(cases)('page %s with ?%s → %s (page A)', async (page, query, expected) => {
  const route = await createRoute(sg.server, { page_a: page, split_ratio: 1 });
  const v = await sg.client.visit(route.code, query === '' ? {} : { query });
  expect(v.status).toBe(302);
  expect(v.location).toBe(expected);
});

it('merges into page B the same way', async () => {
  const route = await createRoute(sg.server, { page_b: 'https://b.example.com/p?k=v#f', split_ratio: 0 });
  const v = await sg.client.visit(route.code, { query: 'utm=1&x=2' });
  expect(v.status).toBe(302);
  expect(v.location).toBe('https://b.example.com/p?k=v&utm=1&x=2#f');
});
