// Builds the uWebSockets.js app from its dependencies. It never listens:
// server.worker.ts does, so tests and benchmarks can build the same app.
import type { Config } from './config.js';
import { type ConsoleDeps, registerConsole } from './console/server.js';
import { AppError, clip } from './errors.js';
import type { IpDatabase } from './ipdb/database.js';
import type { Metrics } from './metrics.js';
import type { FailureLimit, RateLimit } from './limits/limits.js';
import { isHead, registerApi } from './http/api-endpoint.js';
import type { EndpointTable } from './http/endpoint-table.js';
import { guardedEndpoints } from './http/framing.js';
import { openExchange, sendJson } from './http/respond.js';
import { registerServiceEndpoints } from './http/service-endpoints.js';
import { type TemplatedApp, uws } from './http/uws.js';
import { registerRedirect } from './redirect/endpoint.js';
import type { Redirector } from './redirect/redirect.js';
import type { KeyCache } from './store/accounts-store.js';

export interface AppDeps {
  config: Config;
  keyCache: KeyCache;
  metrics: Metrics;
  endpointTable: EndpointTable;
  /** Requests per account per rolling minute: this node's threads together, or the cluster's nodes (limits/). */
  accountLimiter: RateLimit;
  /** Failed authentications per client address (IPv6: per /64, http/client-ip.ts limitKey), counted like accountLimiter. */
  authFailures: FailureLimit;
  /** The database serving now (it can be swapped between requests). */
  database(): IpDatabase | null;
  tls: { certFile: string; keyFile: string };
  /** Key hash → last use (ms), flushed to LMDB in the background. */
  keyUse: Map<string, number>;
  /** Requests whose answer is still being computed; shutdown waits for 0. */
  inflight: { count: number };
  redirector: Redirector;
  /**
   * Cluster mode: whether this node is connected to PostgreSQL and its
   * replica caught up (GET /readyz, contract §9). Null on a single node,
   * which has no /readyz.
   */
  readiness: (() => { ready: boolean; lag_ms: number; database: string; reason?: string }) | null;
  /** The web console under /console; absent, the paths answer 404. */
  console?: ConsoleDeps;
}

/**
 * TLS 1.2 suites offered: ECDHE with AEAD only (no CBC, no SHA-1 MACs, no
 * static RSA key exchange), for ECDSA and RSA certificates alike. TLS 1.3
 * suites are all AEAD and set apart by OpenSSL; uSockets refuses TLS < 1.2.
 */
const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export function buildApp(deps: AppDeps): TemplatedApp {
  const app = uws.SSLApp({ cert_file_name: deps.tls.certFile, key_file_name: deps.tls.keyFile, ssl_ciphers: TLS12_CIPHERS });
  const endpoints = guardedEndpoints(app, deps.config.trustProxy.length > 0);
  registerApi(endpoints, deps);
  registerRedirect(endpoints, deps);
  registerServiceEndpoints(endpoints, deps);
  if (deps.console) registerConsole(endpoints, deps.console);
  endpoints.any('/*', (res, req) => {
    const exchange = openExchange(res, isHead(req));
    const path = req.getUrl();
    sendJson(exchange, 404, new AppError('not_found', `no such path: ${clip(path, 103)}`).body());
  });
  return app;
}
