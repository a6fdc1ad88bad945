// SPLITGUARD_BASE_URL and SPLITGUARD_SHORT_BASE are origins: short_url is
// the short base followed by /r/<code>, so a path, a query or a fragment in
// it makes broken links. A bare '?' or '#' parses to an empty query or
// fragment and was accepted (https://links.example.com# gave short links
// under /#/r/<code>); so was a path.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

it.each(['SPLITGUARD_BASE_URL', 'SPLITGUARD_SHORT_BASE'])('%s takes an origin, a trailing slash dropped', (name) => {
  const config = loadConfig({ [name]: 'https://links.example.com/' });
  expect(name === 'SPLITGUARD_BASE_URL' ? config.baseUrl : config.shortBase).toBe('https://links.example.com');
  expect(loadConfig({ [name]: 'http://127.0.0.1:8080' })).toBeTruthy();
});

it.each([
  ['SPLITGUARD_BASE_URL', 'https://links.example.com#'],
  ['SPLITGUARD_BASE_URL', 'http://x.example.com/?'],
  ['SPLITGUARD_SHORT_BASE', 'https://go.example.com/path'],
  ['SPLITGUARD_SHORT_BASE', 'https://go.example.com/?a=1'],
  ['SPLITGUARD_SHORT_BASE', 'https://user:pw@go.example.com'],
])('%s=%s is refused, naming the variable', (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be an http\\(s\\) origin without credentials, path, query or fragment`));
});
