// GET /v1/ip/check?ip=&level=&ua= and POST /v1/ip/check {"ips": [...], "level", "user_agent"}.
import { AppError, clip, invalidParameter } from '../errors.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import type { CheckResult, Classifier } from '../quality/classifier.js';
import { type Level, LEVELS, parseLevel } from '../quality/lists.js';
import { objectBody, queryParams } from './validate.js';

const BATCH_LIMIT = 50;

function level(value: unknown, field: string): Level {
  if (value === undefined) return 'medium';
  const l = parseLevel(value);
  if (!l) throw invalidParameter(field, `must be one of ${LEVELS.join(', ')}`);
  return l;
}

/** User agents are long, but not this long (the HTTP header cap is ~4 KiB anyway). */
const MAX_USER_AGENT = 1024;

function userAgent(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_USER_AGENT) throw invalidParameter(field, `must be a string of at most ${MAX_USER_AGENT} characters`);
  return value;
}

function checkOne(classifier: Classifier, ip: unknown, field: string, lvl: Level, ua?: string): CheckResult {
  if (typeof ip !== 'string' || ip === '') throw invalidParameter(field, 'must be an IPv4 or IPv6 address');
  const result = ip.length <= 64 ? classifier.check(ip, lvl, ua) : null;
  if (!result) throw invalidParameter(field, `is not a valid IPv4 or IPv6 address: "${clip(ip, 64)}"`);
  return result;
}

export function registerIpEndpoints(table: EndpointTable, classifier: () => Classifier | null): void {
  const current = () => {
    const c = classifier();
    if (!c) throw new AppError('database_unavailable', '', null, { headers: { 'Retry-After': '5' } });
    return c;
  };
  table.add('GET', '/v1/ip/check', (req) => {
    const q = queryParams(req.query, ['ip', 'level', 'ua']);
    if (!q.has('ip')) throw invalidParameter('ip', 'is required');
    const lvl = level(q.get('level') ?? undefined, 'level');
    const ua = userAgent(q.get('ua') ?? undefined, 'ua');
    return { status: 200, body: checkOne(current(), q.get('ip'), 'ip', lvl, ua) };
  });
  table.add('POST', '/v1/ip/check', (req) => {
    const body = objectBody(req.body, ['ips', 'level', 'user_agent']);
    const ips = body.ips;
    if (!Array.isArray(ips)) throw invalidParameter('ips', 'must be an array of 1 to 50 addresses');
    if (ips.length === 0 || ips.length > BATCH_LIMIT) {
      throw invalidParameter('ips', `must hold 1 to ${BATCH_LIMIT} addresses, got ${ips.length}`);
    }
    const lvl = level(body.level, 'level');
    const ua = userAgent(body.user_agent, 'user_agent');
    const c = current();
    return { status: 200, body: { results: ips.map((ip, i) => checkOne(c, ip, `ips[${i}]`, lvl, ua)) } };
  });
}
