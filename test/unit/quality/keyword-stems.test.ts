// The keyword notation (src/quality/keywords.ts): whole words and phrases,
// stems anchored at the start ("host*"), the end ("*hosting") or neither
// ("*vps*") of a word, and false friends that no stem matches. And the list
// checker (lists.ts checkKeywords): a malformed keyword stops start-up with
// a message naming the list and the entry.
import { describe, expect, it } from 'vitest';
import { KeywordSet, keywordShape, words } from '../../../src/quality/keywords.js';
import { checkKeywords } from '../../../src/quality/lists.js';

const match = (keywords: string[], name: string, falseFriends: string[] = []) => new KeywordSet(keywords, falseFriends).match(words(name));

describe('keyword shapes', () => {
  it.each([
    ['hosting', 'words'],
    ['data center', 'words'],
    ['host*', 'prefix'],
    ['*hosting', 'suffix'],
    ['*vps*', 'inside'],
  ])('%s is %s', (k, shape) => {
    expect(keywordShape(k)).toBe(shape);
  });

  it.each(['*', '**', 'data *center', '*data center', 'ho*st', '*', ' ', 'host-*'])('%j is not a keyword', (k) => {
    expect(keywordShape(k)).toBeNull();
    expect(() => new KeywordSet([k])).toThrow('not a keyword');
  });
});

describe('matching', () => {
  it('a prefix stem matches words that start with it, and the word itself', () => {
    expect(match(['host*'], 'HostRoyale Technologies Pvt Ltd')).toBe('host*');
    expect(match(['host*'], 'Example Host')).toBe('host*');
    expect(match(['host*'], 'EGIHosting')).toBeNull();
  });

  it('a suffix stem matches words that end with it', () => {
    expect(match(['*hosting'], 'EGIHosting')).toBe('*hosting');
    expect(match(['*hosting'], 'Hosting Inside')).toBe('*hosting');
    expect(match(['*hosting'], 'HostingInside LTD')).toBeNull();
  });

  it('an inside stem matches anywhere in a word', () => {
    expect(match(['*vps*'], 'BlueVPS OU')).toBe('*vps*');
    expect(match(['*vps*'], 'LLC Vpsville')).toBe('*vps*');
    expect(match(['*vps*'], 'VPS')).toBe('*vps*');
  });

  it('stems never reach across words, and punctuation splits words', () => {
    expect(match(['*hosting'], 'EGI Host ing')).toBeNull();
    expect(match(['host*'], 'Ghost-Hosting Ltd')).toBe('host*');
  });

  it('at a word, whole words come before stems; words are scanned left to right', () => {
    expect(match(['host*', 'host'], 'Example Host')).toBe('host');
    expect(match(['cloud', '*hosting'], 'EGIHosting Cloud')).toBe('*hosting');
  });

  it('a false friend is never matched by a stem, but still by a whole word', () => {
    expect(match(['*host'], 'GHOST Telecom', ['ghost'])).toBeNull();
    expect(match(['*host'], 'GHOST Telecom')).toBe('*host');
    expect(match(['ghost', '*host'], 'GHOST Telecom', ['ghost'])).toBe('ghost');
    // A false friend guards only itself: the next word can still match.
    expect(match(['*host'], 'Ghost Alexhost', ['ghost'])).toBe('*host');
  });

  it('without stars, matching is whole-word as before', () => {
    expect(match(['proxy'], 'HAProxy Technologies')).toBeNull();
    expect(match(['colo'], 'Colombia Movil')).toBeNull();
    expect(match(['data center'], 'Example Data Center GmbH')).toBe('data center');
    expect(match(['data center'], 'Example Data')).toBeNull();
  });
});

describe('the keywords.json checker', () => {
  const valid = {
    strong: ['hosting', 'host*', '*vps*'],
    weak: ['colo'],
    vpn_proxy: ['vpn', '*vpn'],
    carrier: ['telecom', 'internet service provider'],
    false_friends: ['ghost'],
    outweigh_carrier: ['hosting', '*host'],
  };

  it('accepts valid lists', () => {
    expect(checkKeywords(valid)).toEqual({ ...valid, hosting_brands: [] });
  });

  it('matches hosting brands as strong whole words, after the strong list', () => {
    expect(checkKeywords({ ...valid, hosting_brands: ['xtom', 'internet vikings'] })).toEqual({ ...valid, strong: [...valid.strong, 'xtom', 'internet vikings'], hosting_brands: ['xtom', 'internet vikings'] });
  });

  it.each([
    [{ strong: 'hosting' }, 'keywords.json strong must be an array of lowercase words'],
    [{ strong: ['Hosting'] }, 'keywords.json strong[0] must be a lowercase word'],
    [{ strong: ['hosting', ' vps'] }, 'keywords.json strong[1] must be a lowercase word'],
    [{ strong: ['hosting', 'data *center'] }, 'keywords.json strong[1] ("data *center") must be whole words or one word with a leading and/or trailing *'],
    [{ weak: ['co*lo'] }, 'keywords.json weak[0] ("co*lo") must be whole words or one word'],
    [{ vpn_proxy: ['vpn', 'vpn'] }, 'keywords.json vpn_proxy[1] ("vpn") is listed twice'],
    [{ carrier: ['telecom', 'tele*'] }, 'keywords.json carrier[1] ("tele*") must be whole words: carrier takes no stems'],
    [{ false_friends: ['ghost*'] }, 'keywords.json false_friends[0] ("ghost*") must be whole words: false_friends takes no stems'],
    [{ false_friends: ['two words'] }, 'keywords.json false_friends[0] ("two words") must be one word of letters and digits'],
    [{ false_friends: ['h-ost'] }, 'keywords.json false_friends[0] ("h-ost") must be one word of letters and digits'],
    [{ outweigh_carrier: undefined }, 'keywords.json outweigh_carrier must be an array'],
    [{ hosting_brands: ['xtom*'] }, 'keywords.json hosting_brands[0] ("xtom*") must be whole words: hosting_brands takes no stems'],
    [{ hosting_brands: ['xtom', 'hosting'] }, 'keywords.json hosting_brands[1] ("hosting") is also a strong word'],
  ])('refuses %j', (change, message) => {
    expect(() => checkKeywords({ ...valid, ...change })).toThrow(message);
  });

  it('refuses something that is not an object', () => {
    expect(() => checkKeywords([])).toThrow('keywords.json must be an object');
  });
});
