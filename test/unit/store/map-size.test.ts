// The store's memory map (src/store/db.ts storeMapSize): the whole MAP_SIZE
// when the address space is unlimited, a quarter of a `ulimit -v` otherwise,
// read from /proc/self/limits' soft limit.
import { describe, expect, it } from 'vitest';
import { MAP_SIZE, storeMapSize } from '../../../src/store/db.js';

const limits = (soft: string, hard = soft) => [
  'Limit                     Soft Limit           Hard Limit           Units     ',
  'Max stack size            8388608              unlimited            bytes     ',
  `Max address space         ${soft.padEnd(20)} ${hard.padEnd(20)} bytes     `,
  'Max open files            1024                 1048576              files     ',
].join('\n');

describe('storeMapSize', () => {
  it('reserves the whole map when the address space is unlimited', () => {
    expect(storeMapSize(limits('unlimited'))).toBe(MAP_SIZE);
    expect(MAP_SIZE).toBe(2 ** 36);
  });

  it('reserves a quarter of a limited address space, in whole MiB, never more than the whole map', () => {
    expect(storeMapSize(limits('40000000000'))).toBe(Math.floor(10_000_000_000 / 2 ** 20) * 2 ** 20);
    expect(storeMapSize(limits('8192000000', 'unlimited'))).toBe(Math.floor(2_048_000_000 / 2 ** 20) * 2 ** 20);
    expect(storeMapSize(limits(String(2 ** 40)))).toBe(MAP_SIZE);
  });

  it('reserves at least 1 MiB however small the limit', () => {
    expect(storeMapSize(limits('1000000'))).toBe(2 ** 20);
  });

  it('reserves the whole map when the limits cannot be read', () => {
    expect(storeMapSize('')).toBe(MAP_SIZE);
    expect(storeMapSize('Max address space         lots')).toBe(MAP_SIZE);
  });
});
