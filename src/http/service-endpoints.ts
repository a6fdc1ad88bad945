// /healthz (liveness and the serving database), /readyz in cluster mode
// (readiness), and /metrics (Prometheus text, to the addresses in
// SPLITGUARD_METRICS_FROM or loopback). Each answers GET and HEAD alike:
// load balancers and monitors check with either.
import type { AppDeps } from '../app.js';
import { AppError } from '../errors.js';
import { Metric } from '../metrics.js';
import { inCidrs, LOOPBACK } from './client-ip.js';
import { requestAddress } from './request.js';
import type { Endpoints } from './framing.js';
import { type Exchange, openExchange, JSON_TYPE, send, sendJson } from './respond.js';
import type { HttpRequest } from './uws.js';

export function registerServiceEndpoints(endpoints: Endpoints, deps: Pick<AppDeps, 'config' | 'metrics' | 'database' | 'readiness'>): void {
  const { config, metrics } = deps;
  // HEAD runs GET's handler: the same status and headers, ended without the
  // body (Content-Length: 0 and Connection: close: endHead in respond.ts).
  // Another method is 405 naming the two (the path exists to everyone),
  // unless `hidden`: /metrics, which is not there for most callers, leaves
  // other methods to the catch-all 404.
  const getAndHead = (pattern: string, answer: (exchange: Exchange, req: HttpRequest) => void, hidden = false) => {
    endpoints.get(pattern, (res, req) => answer(openExchange(res), req));
    endpoints.head(pattern, (res, req) => answer(openExchange(res, true), req));
    if (!hidden) endpoints.any(pattern, (res) => sendJson(openExchange(res), 405, new AppError('method_not_allowed', `${pattern} allows GET, HEAD`).body(), { Allow: 'GET, HEAD' }));
  };

  getAndHead('/healthz', (exchange) => {
    const db = deps.database();
    if (!db) {
      send(exchange, 503, { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' }, '{"status":"unavailable"}');
      return;
    }
    sendJson(exchange, 200, { status: 'ok', database: { version: db.info.version, built_at: db.info.builtAt } });
  });

  // A readiness check for load balancers: 503 takes the node out of the
  // rotation while it cannot reach PostgreSQL or its replica lags, though it
  // still answers redirects (it is alive: /healthz).
  const readiness = deps.readiness;
  if (readiness) {
    getAndHead('/readyz', (exchange) => {
      const state = readiness();
      sendJson(exchange, state.ready ? 200 : 503, state);
    });
  }

  getAndHead('/metrics', (exchange, req) => {
    // The client, not the socket's peer: behind a reverse proxy on the same
    // host every visitor's peer is loopback (and so is the stand-in for a
    // forwarded hop that is no address).
    const client = requestAddress(exchange.res, req, config.trustProxy, true);
    if (client === null || !inCidrs(client, config.metricsFrom.length ? config.metricsFrom : LOOPBACK)) {
      sendJson(exchange, 404, new AppError('not_found').body());
      return;
    }
    const db = deps.database();
    const gauges: { name: string; help: string; value: number; labels?: Record<string, string> }[] = db
      ? [
          { name: 'splitguard_database_age_seconds', help: 'Seconds since the serving database was built', value: Math.round((Date.now() - Date.parse(db.info.builtAt)) / 1000) },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v4, labels: { family: 'ipv4' } },
          { name: 'splitguard_database_ranges', help: 'Ranges in the serving database', value: db.info.ranges.v6, labels: { family: 'ipv6' } },
        ]
      : [];
    // The slowest thread's: about 1 s (the flush interval) while the store
    // takes the clicks, growing while it does not (PostgreSQL away, a full disk).
    const flushed = metrics.oldest(Metric.clicksFlushedAt);
    if (flushed !== null) {
      gauges.push({ name: 'splitguard_click_flush_lag_seconds', help: 'Seconds since the server thread that flushed longest ago last wrote its clicks to the store', value: Math.max(0, (Date.now() - flushed) / 1000) });
    }
    if (readiness) {
      // Cluster mode: which node this is, and its link to PostgreSQL.
      const state = readiness();
      const node = { node: config.nodeName };
      gauges.push(
        { name: 'splitguard_cluster_database_connected', help: 'Whether this node reaches PostgreSQL (1) or serves from its replica alone (0)', value: state.database === 'connected' ? 1 : 0, labels: node },
        { name: 'splitguard_cluster_replication_lag_ms', help: 'How long the replica has been behind the change log (0 when caught up)', value: state.lag_ms, labels: node },
        { name: 'splitguard_cluster_ready', help: 'What GET /readyz says (1 ready, 0 not)', value: state.ready ? 1 : 0, labels: node },
      );
    }
    send(exchange, 200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' }, metrics.render(gauges));
  }, true);
}
