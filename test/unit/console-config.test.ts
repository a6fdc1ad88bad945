// SPLITGUARD_SESSION_IDLE_MINUTES: default 30, decimals allowed, anything
// else stops start-up with a message that names the variable.
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

it('defaults to 30 minutes and takes a positive number up to 720', () => {
  expect(loadConfig({}).sessionIdleMinutes).toBe(30);
  expect(loadConfig({ SPLITGUARD_SESSION_IDLE_MINUTES: '' }).sessionIdleMinutes).toBe(30);
  expect(loadConfig({ SPLITGUARD_SESSION_IDLE_MINUTES: '0.05' }).sessionIdleMinutes).toBe(0.05);
  expect(loadConfig({ SPLITGUARD_SESSION_IDLE_MINUTES: '720' }).sessionIdleMinutes).toBe(720);
});

it('refuses zero, negatives, words and more than 12 hours, naming the variable', () => {
  for (const bad of ['0', '-5', 'ten', '721', '1e3', '30 min']) {
    let err: unknown;
    try {
      loadConfig({ SPLITGUARD_SESSION_IDLE_MINUTES: bad });
    } catch (e) {
      err = e;
    }
    expect(err, bad).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('SPLITGUARD_SESSION_IDLE_MINUTES');
    expect((err as Error).message).toBe(`SPLITGUARD_SESSION_IDLE_MINUTES must be a positive number up to 720, got "${bad}"`);
  }
});
