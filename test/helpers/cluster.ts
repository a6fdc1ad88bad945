// A cluster on loopback for a test: a private PostgreSQL and Redis, N
// splitguard nodes (one server thread each, their own data directories,
// node-0 started first so that it migrates and bootstraps), and a real
// nginx in front, which the nodes trust for X-Forwarded-For. Everything is
// removed at close(). useCluster() does the same for a test file, in its
// beforeAll and afterAll hooks.
import { afterAll, beforeAll } from 'vitest';
import { postgresBin, startPostgres, type TestPostgres } from './postgres.js';
import { nginxInstalled, startNginx, type TestNginx } from './nginx.js';
import { redisInstalled, startRedis, type TestRedis } from './redis.js';
import { type Endpoint, RedirectClient } from './routes.js';
import { rmSync } from 'node:fs';
import { freePort } from './ports.js';
import { type Env, startServer, tempDataDir, type TestServer } from './server.js';
import { type SourceServer, startSourceServer } from './sources.js';

/** Why a cluster cannot run here (a missing service binary; nginx only when it is wanted), or null. */
function clusterSkipReason(nginx: boolean): string | null {
  if (postgresBin() === null) return 'PostgreSQL is not installed (/usr/lib/postgresql/<version>/bin)';
  if (!redisInstalled()) return 'redis-server is not installed';
  if (nginx && !nginxInstalled()) return 'nginx is not installed';
  return null;
}

export interface TestCluster {
  pg: TestPostgres;
  redis: TestRedis;
  nodes: TestServer[];
  /** nginx, in front of every node. */
  lb: Endpoint;
  nginx: TestNginx;
  /** The bootstrap account's key (node-0 made it). */
  apiKey: string;
  /** A node as an Endpoint with the cluster's key. */
  node(i: number): Endpoint;
  /** The environment node i runs with. */
  env(i: number): Env;
  /** Starts node i again (after it was stopped or killed) on its data directory and port. */
  restart(i: number): Promise<TestServer>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  nodes?: number;
  /** Extra environment for every node. */
  env?: Env;
  /** Extra environment for node i alone (over `env`). */
  nodeEnv?: (i: number) => Env;
  /** Put nginx in front (default true). */
  nginx?: boolean;
  /** Server threads per node (default 1). */
  threads?: number;
  /** A command every node runs under (StartOptions.wrapper). */
  wrapper?: string[];
}

export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const count = options.nodes ?? 3;
  const pg = await startPostgres();
  const redis = await startRedis();
  const nodes: TestServer[] = [];
  // Each node keeps its port and data directory across restarts (nginx's upstreams stay right).
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const dataDirs = ports.map(() => tempDataDir());
  let nginx: TestNginx | null = null;
  const env = (i: number): Env => ({
    PORT: String(ports[i]),
    SPLITGUARD_DATABASE_URL: pg.url,
    SPLITGUARD_REDIS_URL: redis.url,
    SPLITGUARD_NODE_NAME: `node-${i}`,
    SPLITGUARD_TRUST_PROXY: '127.0.0.1',
    ...options.env,
    ...options.nodeEnv?.(i),
  });
  const close = async () => {
    await nginx?.close();
    await Promise.all(nodes.map((n) => n.close()));
    await redis.close();
    pg.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  };
  // Node-0 bootstraps the cluster's account; every node is given its key and id (the others have no bootstrap.json).
  const start = async (i: number): Promise<TestServer> => {
    const n = await startServer({ env: env(i), dataDir: dataDirs[i], threads: options.threads, wrapper: options.wrapper });
    return i === 0 || nodes.length === 0 ? n : { ...n, apiKey: nodes[0].apiKey, accountId: nodes[0].accountId };
  };
  try {
    nodes.push(await start(0));
    nodes.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => start(i + 1)))));
    if (options.nginx !== false) nginx = await startNginx(ports, `${dataDirs[0]}/tls/cert.pem`, `${dataDirs[0]}/tls/key.pem`);
  } catch (err) {
    await close();
    throw err;
  }
  const apiKey = nodes[0].apiKey;
  const endpoint = (server: Pick<TestServer, 'ports' | 'ca'>): Endpoint => ({ ports: server.ports, ca: server.ca, apiKey });
  return {
    pg,
    redis,
    nodes,
    lb: nginx ? { ports: [nginx.port], ca: nodes[0].ca, apiKey } : endpoint(nodes[0]),
    nginx: nginx!,
    apiKey,
    node: (i) => endpoint(nodes[i]),
    env,
    async restart(i) {
      await nodes[i].close();
      nodes[i] = await start(i);
      return nodes[i];
    },
    close,
  };
}

/** useCluster()'s handle: the started cluster (close() is the afterAll hook's), and why it is not started. */
interface UsedCluster extends Omit<TestCluster, 'close'> {
  /** Why the cluster is not started here (a missing service binary), or null: for it.skipIf. */
  readonly skip: string | null;
}

/**
 * The cluster of a test file: registers a beforeAll hook that starts it
 * (nothing when a service binary is missing: `skip` says which) and an
 * afterAll hook that closes it. The handle reads as the started cluster;
 * used before the beforeAll hook ran, or when skipped, it throws.
 *
 * Hook order (sequence.hooks 'stack', vitest 4's default, which vitest.config.ts
 * does not change): beforeAll hooks run in the order they are registered,
 * afterAll hooks in the reverse order. So hooks a file registers after this call (clients of
 * the nodes, say) run after the cluster has started and before it closes, and
 * hooks registered before it run before it starts and after it closes.
 * `options` may be a function, called in the beforeAll hook: for options that
 * need something an earlier hook started.
 */
export function useCluster(options: ClusterOptions | (() => ClusterOptions)): UsedCluster {
  // Options given as a function are known only in the hook: nginx counts as wanted.
  const skip = clusterSkipReason(typeof options === 'function' || options.nginx !== false);
  let started: TestCluster | undefined;
  beforeAll(async () => {
    if (skip) return;
    started = await startCluster(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const cluster = (): TestCluster => {
    if (started) return started;
    throw new Error(skip ? `The cluster is not started: ${skip}` : 'The cluster is not started yet: use it in a test, or in a beforeAll hook registered after useCluster()');
  };
  return {
    skip,
    get pg() { return cluster().pg; },
    get redis() { return cluster().redis; },
    get nodes() { return cluster().nodes; },
    get lb() { return cluster().lb; },
    get nginx() { return cluster().nginx; },
    get apiKey() { return cluster().apiKey; },
    node: (i) => cluster().node(i),
    env: (i) => cluster().env(i),
    restart: (i) => cluster().restart(i),
  };
}

/**
 * Two nodes (nginx left out, no rate limit to speak of) that refresh from a
 * source server of the file's own ("valid" data), which starts before the
 * cluster (whose options name it) and closes after it.
 */
export function useRefreshingCluster(): { cluster: UsedCluster; sources: () => SourceServer } {
  let sources: SourceServer | undefined;
  // Registered before useCluster's hooks: see the hook order there.
  beforeAll(async () => {
    if (cluster.skip) return;
    sources = await startSourceServer();
  });
  afterAll(async () => {
    await sources?.close();
  });
  const cluster = useCluster(() => ({ nodes: 2, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: '1000000', SPLITGUARD_IPDB_SOURCES: sources!.location('valid') } }));
  return { cluster, sources: () => sources! };
}

/**
 * A keep-alive redirect client on each of the first `count` nodes, made once
 * the cluster has started and closed before it stops (call it after
 * useCluster: see the hook order there). Empty when the cluster is skipped.
 */
export function useNodeClients(cluster: UsedCluster, count = 2): RedirectClient[] {
  const clients: RedirectClient[] = [];
  beforeAll(() => {
    if (!cluster.skip) for (let i = 0; i < count; i++) clients.push(new RedirectClient(cluster.node(i)));
  });
  afterAll(() => {
    for (const c of clients) c.close();
  });
  return clients;
}

/**
 * For a file whose tests start their own servers around a cluster's stores
 * (cluster import, going back to one node): a private PostgreSQL and Redis
 * for the file, `skip` when either is not installed, and the servers handed
 * to `track` closed after the file's tests, before the stores.
 */
export function useClusterStores(): { skip: boolean; env: () => Env; track: <T extends TestServer>(server: T) => T } {
  const skip = postgresBin() === null || !redisInstalled();
  let pg: TestPostgres | undefined;
  let redis: TestRedis | undefined;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    if (!skip) [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  });
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close();
    await redis?.close();
    pg?.close();
  });
  return {
    skip,
    env: () => ({ SPLITGUARD_DATABASE_URL: pg!.url, SPLITGUARD_REDIS_URL: redis!.url }),
    track: (server) => (servers.push(server), server),
  };
}
