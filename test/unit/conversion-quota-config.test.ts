// SPLITGUARD_CONVERSION_QUOTA: the conversions an account may store, by
// default 10,000,000 (about 1.45 GB of LMDB); 0 is "no limit"; anything but
// an integer from 0 to 10^12 stops start-up with a message naming it.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

it('defaults to 10,000,000 and takes 0 (no limit) up to 10^12', () => {
  expect(loadConfig({}).conversionQuota).toBe(10_000_000);
  expect(loadConfig({ SPLITGUARD_CONVERSION_QUOTA: '' }).conversionQuota).toBe(10_000_000);
  expect(loadConfig({ SPLITGUARD_CONVERSION_QUOTA: '0' }).conversionQuota).toBe(0);
  expect(loadConfig({ SPLITGUARD_CONVERSION_QUOTA: '1000000000000' }).conversionQuota).toBe(1e12);
});

it.each(['-1', '2.5', 'lots', '1000000000001'])('refuses %s naming the variable', (bad) => {
  expect(() => loadConfig({ SPLITGUARD_CONVERSION_QUOTA: bad })).toThrow(ConfigError);
  expect(() => loadConfig({ SPLITGUARD_CONVERSION_QUOTA: bad })).toThrow(`SPLITGUARD_CONVERSION_QUOTA must be an integer from 0 to 1000000000000, got "${bad}"`);
});
