// /healthz (liveness and the serving database) and /metrics (Prometheus
// text, to the addresses in SPLITGUARD_METRICS_FROM or loopback).
import type { AppDeps } from '../app.js';
import { AppError } from '../errors.js';
import { inCidrs, LOOPBACK, normalizeAddress } from './client-ip.js';
import type { Endpoints } from './framing.js';
import { openExchange, JSON_TYPE, send, sendJson } from './respond.js';

export function registerServiceEndpoints(endpoints: Endpoints, deps: Pick<AppDeps, 'config' | 'metrics' | 'database'>): void {
  const { config, metrics } = deps;
  endpoints.get('/healthz', (res) => {
    const exchange = openExchange(res);
    const db = deps.database();
    if (!db) {
      send(exchange, 503, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, '{"status":"unavailable"}');
      return;
    }
    sendJson(exchange, 200, { status: 'ok', database: { version: db.info.version, built_at: db.info.builtAt } });
  });

  endpoints.get('/metrics', (res) => {
    const exchange = openExchange(res);
    const peer = normalizeAddress(res.getRemoteAddress());
    if (!inCidrs(peer, config.metricsFrom.length ? config.metricsFrom : LOOPBACK)) {
      sendJson(exchange, 404, new AppError('not_found').body());
      return;
    }
    const db = deps.database();
    const gauges = db
      ? [
          { name: 'splitguard_database_age_seconds', help: 'Seconds since the serving database was built', value: Math.round((Date.now() - Date.parse(db.info.builtAt)) / 1000) },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v4, labels: { family: 'ipv4' } },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v6, labels: { family: 'ipv6' } },
        ]
      : [];
    send(exchange, 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' }, metrics.render(gauges));
  });
}
