// Cluster mode's variables (contract §9): SPLITGUARD_DATABASE_URL and
// SPLITGUARD_REDIS_URL together or not at all, each a URL of its scheme,
// never echoed with its password; SPLITGUARD_NODE_NAME defaults to the host
// name and is a short plain name.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';

const PG = 'postgres://splitguard:secret@db.example.com:5432/splitguard';
const REDIS = 'redis://cache.example.com:6379';

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('the configuration was accepted');
}

describe('cluster configuration', () => {
  it('is off without either variable: a single node', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBeNull();
    expect(c.redisUrl).toBeNull();
    expect(c.nodeName).toBe(os.hostname());
  });

  it('takes both URLs and a node name', () => {
    const c = loadConfig({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: 'rediss://cache.example.com', SPLITGUARD_NODE_NAME: 'edge-1' });
    expect(c).toMatchObject({ databaseUrl: PG, redisUrl: 'rediss://cache.example.com', nodeName: 'edge-1' });
    expect(loadConfig({ SPLITGUARD_DATABASE_URL: 'postgresql://db/x', SPLITGUARD_REDIS_URL: REDIS }).databaseUrl).toBe('postgresql://db/x');
  });

  it('refuses one URL without the other, naming the missing one', () => {
    const noRedis = refusal({ SPLITGUARD_DATABASE_URL: PG });
    expect(noRedis.variable).toBe('SPLITGUARD_REDIS_URL');
    expect(noRedis.message).toMatch(/SPLITGUARD_REDIS_URL must be set together with SPLITGUARD_DATABASE_URL/);
    expect(refusal({ SPLITGUARD_REDIS_URL: REDIS }).variable).toBe('SPLITGUARD_DATABASE_URL');
  });

  it.each([
    ['SPLITGUARD_DATABASE_URL', 'mysql://db.example.com/x'],
    ['SPLITGUARD_DATABASE_URL', 'not a url'],
    ['SPLITGUARD_REDIS_URL', 'http://cache.example.com'],
  ])('%s=%s: refused, naming the variable', (variable, value) => {
    const err = refusal({ SPLITGUARD_DATABASE_URL: PG, SPLITGUARD_REDIS_URL: REDIS, [variable]: value });
    expect(err.variable).toBe(variable);
    expect(err.code).toBe('config_invalid');
  });

  it('never repeats a password from a refused URL', () => {
    const err = refusal({ SPLITGUARD_DATABASE_URL: 'mysql://u:hunter2@db/x', SPLITGUARD_REDIS_URL: REDIS });
    expect(err.message).not.toContain('hunter2');
    expect(err.message).toContain('mysql://u:***@db/x');
  });

  it('never repeats a password that holds a "/" (the URL it makes is invalid, and shown)', () => {
    const err = refusal({ SPLITGUARD_DATABASE_URL: 'postgres://admin:s3cr/et@/db', SPLITGUARD_REDIS_URL: REDIS });
    expect(err.message).not.toContain('s3cr');
    expect(err.message).toContain('postgres://admin:***@/db');
  });

  it.each(['has space', 'x'.repeat(65), 'a/b'])('refuses the node name %s', (name) => {
    expect(refusal({ SPLITGUARD_NODE_NAME: name }).variable).toBe('SPLITGUARD_NODE_NAME');
  });
});
