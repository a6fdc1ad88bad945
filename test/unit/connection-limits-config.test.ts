// The connection guard's variables: SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS
// (default 256), SPLITGUARD_MAX_CONNECTIONS (unset: decided at start from the
// open-file limit) and SPLITGUARD_STALL_SECONDS (default 10); 0 turns a rule
// off; anything else stops start-up with a message that names the variable.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

it('has the documented defaults, and 0 for "no cap"', () => {
  const c = loadConfig({});
  expect(c.maxConnectionsPerAddress).toBe(256);
  expect(c.maxConnections).toBeNull();
  expect(c.stallSeconds).toBe(10);
  const off = loadConfig({ SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS: '0', SPLITGUARD_MAX_CONNECTIONS: '0', SPLITGUARD_STALL_SECONDS: '0' });
  expect([off.maxConnectionsPerAddress, off.maxConnections, off.stallSeconds]).toEqual([0, 0, 0]);
  const set = loadConfig({ SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS: '20', SPLITGUARD_MAX_CONNECTIONS: '50000', SPLITGUARD_STALL_SECONDS: '2' });
  expect([set.maxConnectionsPerAddress, set.maxConnections, set.stallSeconds]).toEqual([20, 50000, 2]);
  expect(loadConfig({ SPLITGUARD_MAX_CONNECTIONS: '' }).maxConnections).toBeNull();
});

it('refuses negatives, words, decimals and values out of range, naming the variable', () => {
  const cases: [string, string, string][] = [
    ['SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS', '-1', 'an integer from 0 to 10000000'],
    ['SPLITGUARD_MAX_CONNECTIONS_PER_ADDRESS', 'many', 'an integer from 0 to 10000000'],
    ['SPLITGUARD_MAX_CONNECTIONS', '1.5', 'an integer from 0 to 10000000'],
    ['SPLITGUARD_MAX_CONNECTIONS', '10000001', 'an integer from 0 to 10000000'],
    ['SPLITGUARD_STALL_SECONDS', '3601', 'an integer from 0 to 3600'],
    ['SPLITGUARD_STALL_SECONDS', '10s', 'an integer from 0 to 3600'],
  ];
  for (const [variable, bad, expected] of cases) {
    let err: unknown;
    try {
      loadConfig({ [variable]: bad });
    } catch (e) {
      err = e;
    }
    expect(err, `${variable}=${bad}`).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(variable);
    expect((err as Error).message).toBe(`${variable} must be ${expected}, got "${bad}"`);
  }
});
