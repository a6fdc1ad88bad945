// SPLITGUARD_REDIS_URL: unset means limits per node; a redis:// or rediss://
// URL (credentials and a database number allowed) switches them to Redis;
// anything else stops start-up with a message naming the variable, and a
// password in a refused value is not repeated. SPLITGUARD_REDIS_TIMEOUT_MS
// (default 50) bounds an API request's wait on Redis. (Cluster mode takes
// SPLITGUARD_DATABASE_URL with it: cluster-config.test.ts.)
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const PG = 'postgres://db.example.com/splitguard';

it('is off when unset or empty, and defaults the timeout to 50 ms', () => {
  expect(loadConfig({}).redisUrl).toBeNull();
  expect(loadConfig({ SPLITGUARD_REDIS_URL: '' }).redisUrl).toBeNull();
  expect(loadConfig({}).redisTimeoutMs).toBe(50);
  expect(loadConfig({ SPLITGUARD_REDIS_TIMEOUT_MS: '200' }).redisTimeoutMs).toBe(200);
});

it('takes redis:// and rediss:// URLs with credentials and a database number', () => {
  for (const url of ['redis://127.0.0.1:6379', 'redis://cache.internal:6380/2', 'rediss://user:s3cret@redis.example.com:6380/0', 'redis://[::1]:6379/']) {
    expect(loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: url }).redisUrl, url).toBe(new URL(url).href);
  }
});

it('refuses other schemes, a missing host, a query and a path that is not a database number, naming the variable', () => {
  const bad = ['http://127.0.0.1:6379', 'postgres://db/x', '127.0.0.1:6379', 'redis://', 'redis://h:6379/0?tls=1', 'redis://h:6379/cache', 'redis://h/1/2'];
  for (const value of bad) {
    let err: unknown;
    try {
      loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: value });
    } catch (e) {
      err = e;
    }
    expect(err, value).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('config_invalid');
    expect((err as ConfigError).variable).toBe('SPLITGUARD_REDIS_URL');
    expect((err as Error).message).toMatch(/^SPLITGUARD_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
  }
});

it('does not repeat the password of a refused URL', () => {
  let err: unknown;
  try {
    loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: 'http://admin:hunter2@cache:6379' });
  } catch (e) {
    err = e;
  }
  expect((err as Error).message).not.toContain('hunter2');
  expect((err as Error).message).toContain('got "http://***@cache:6379"');
});

it('does not repeat a password that holds a "/"', () => {
  expect(() => loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: 'redis://:hunter/2@cache' })).toThrow(/got "redis:\/\/\*\*\*@cache"/);
  expect(() => loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: 'redis://:hunter/2@cache' })).not.toThrow(/hunter/);
});

it('refuses a timeout out of 1..10000 ms', () => {
  for (const value of ['0', '10001', '50ms']) expect(() => loadConfig({ SPLITGUARD_REDIS_TIMEOUT_MS: value }), value).toThrow(/^SPLITGUARD_REDIS_TIMEOUT_MS must be an integer from 1 to 10000/);
});
