// SPLITGUARD_FEED_SOURCES: unset for the publishers, `off`, or
// name=url[,url...] entries joined by ';'. Each entry names a known feed once:
// a feed named twice kept only its last entry, silently.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const sources = (value: string) => loadConfig({ SPLITGUARD_FEED_SOURCES: value }).feedSources;

it('reads the publishers, off, or the entries', () => {
  expect(sources('')).toBe('publishers');
  expect(sources('off')).toBe('off');
  expect(sources('tor=https://a.example/t,https://b.example/t; aws=file:///srv/aws.json')).toEqual(
    new Map([['tor', ['https://a.example/t', 'https://b.example/t']], ['aws', ['file:///srv/aws.json']]]),
  );
});

it.each([
  ['tor=https://a.example/t;tor=https://b.example/t', /each feed named once \(tor is named twice\)/],
  ['nosuchfeed=https://a.example/x', /naming known feeds/],
  ['tor=ftp://a.example/t', /http:, https: or file: URLs for feed tor/],
])('refuses %s, naming the variable', (value, why) => {
  expect(() => sources(value)).toThrow(/^SPLITGUARD_FEED_SOURCES must be /);
  expect(() => sources(value)).toThrow(why);
});
