// The connection to Redis for the cluster-wide limits: the only module that
// loads ioredis. One per server thread.
//
// Failing fast is the point: an API request waits on Redis for its decision
// at most SPLITGUARD_REDIS_TIMEOUT_MS (50 ms by default). The offline queue
// is off, so while the connection is down a command fails at once instead
// of waiting for a reconnect, and ioredis reconnects by itself (every 100 ms
// growing to 1 s). After a command fails or times out on a connection that
// looks up, Redis is left alone for RETRY_MS: a stalled Redis then costs one
// request a timeout, not every request.
//
// State changes are logged once per transition (redis_connected,
// redis_unavailable) and exposed in /metrics: splitguard_redis_connected
// (this thread's 0 or 1, summed over the threads) and
// splitguard_limit_fallbacks_total (decisions made locally meanwhile).
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { AppError } from '../errors.js';
import { log } from '../log.js';
import { Metric, type Metrics } from '../metrics.js';
import { HEARTBEAT, type Script } from './scripts.js';

/** After a failed command on an open connection, how long Redis is left alone. */
const RETRY_MS = 1000;
const HEARTBEAT_MS = 5000;
/** A node silent this long no longer counts as live. */
const ALIVE_MS = 15_000;
/** How long a starting thread waits for its first connection to settle (started()). */
const START_WAIT_MS = 3000;
const NODES_KEY = 'sg:nodes';

export interface RedisLinkOptions {
  url: string;
  timeoutMs: number;
  metrics: Metrics;
  /** Whether this thread reports the live-node count in /metrics (one thread per process does). */
  reportsNodes: boolean;
  /**
   * This process in the live-node set (WorkerInput.instance): the same for
   * every thread of it, different for every process, wherever it runs.
   */
  member: string;
}

export class RedisLink {
  readonly #client: Redis;
  readonly #timeoutMs: number;
  readonly #metrics: Metrics;
  readonly #reportsNodes: boolean;
  /** This process in the live-node set: the same for every thread of it. */
  readonly #member: string;
  readonly #heartbeat: NodeJS.Timeout;
  /** Until then (ms) Redis is not asked: a command failed on an open connection. */
  #restingUntil = 0;
  /** What was last reported: null before the first connection attempt ends. */
  #up: boolean | null = null;
  /** Live nodes at the last heartbeat; 0 while none has been counted. */
  #nodes = 0;
  /** Set by close(): the connection's end is then not an outage to report. */
  #closing = false;
  readonly #started: Promise<void>;
  #settleStart!: () => void;
  #startSettled = false;

  constructor(options: RedisLinkOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#metrics = options.metrics;
    this.#reportsNodes = options.reportsNodes;
    this.#member = options.member;
    this.#started = new Promise((resolve) => {
      this.#settleStart = () => {
        this.#startSettled = true;
        resolve();
      };
    });
    setTimeout(() => this.#settleStart(), START_WAIT_MS).unref();
    // Loaded here, not at import: a single node never loads ioredis (see pgModule in store/pg/client.ts).
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.#client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // The deadline that matters is run()'s; this one only frees a command
      // Redis never answered.
      commandTimeout: Math.max(1000, 10 * options.timeoutMs),
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(100 * times, 1000),
    });
    // Connected: the first heartbeat's answer reports it, with the node count.
    // The start's heartbeat may take the start's whole wait: one that timed
    // out at the requests' deadline (a first EVAL, a busy start) would let
    // the thread listen knowing no other node.
    this.#client.on('ready', () => {
      this.#restingUntil = 0;
      this.beat(this.#startSettled ? this.#timeoutMs : START_WAIT_MS);
      if (this.#reportsNodes) void this.#checkEviction();
    });
    this.#client.on('error', (err: Error) => {
      this.#report(false, err);
      this.#settleStart();
    });
    this.#client.on('close', () => {
      this.#report(false);
      this.#settleStart();
    });
    this.#heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /**
   * Settles once the first connection has been tried: connected and the
   * first heartbeat answered (the live-node count known), or failed, or
   * after START_WAIT_MS (a Redis that accepts and does not answer). A thread
   * listens only then: before, every request would be decided by this node
   * alone with the whole limit (it knows of no other node yet), which Redis
   * never learns, so each node of a rolling restart let up to a limit more
   * through.
   */
  started(): Promise<void> {
    return this.#started;
  }

  /** Whether a limit should ask Redis now, rather than decide locally. */
  usable(nowMs: number): boolean {
    return this.#client.status === 'ready' && nowMs >= this.#restingUntil;
  }

  /**
   * This node's share of a cluster-wide `limit` while Redis is away: the
   * limit divided among the nodes last seen live (at least 1). With no count
   * yet (Redis never reached since the start) the whole limit.
   */
  share(limit: number): number {
    return this.#nodes > 1 ? Math.max(1, Math.floor(limit / this.#nodes)) : limit;
  }

  /** Live nodes at the last heartbeat (0: never counted). */
  get nodes(): number {
    return this.#nodes;
  }

  /** A decision made locally because Redis could not be asked or did not answer. */
  fellBack(): void {
    this.#metrics.inc(Metric.limitFallbacks);
  }

  /**
   * Runs `script` on one key: EVALSHA, and EVAL when Redis does not know the
   * script (a new or restarted Redis), within the timeout as a whole. A
   * failure rests the link (see RETRY_MS) before it is passed on.
   */
  async run(script: Script, key: string, args: (string | number)[], timeoutMs = this.#timeoutMs): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      // Timers run before the event loop reads sockets: a busy thread would
      // see the deadline pass while the answer waits unread. setImmediate
      // runs after this turn's reads, so an answer that has arrived wins.
      timer = setTimeout(() => setImmediate(() => reject(new AppError('redis_timeout', `${timeoutMs} ms`))), timeoutMs);
    });
    const call = this.#client.evalsha(script.sha, 1, key, ...args).catch((err: Error) => {
      if (!err.message.startsWith('NOSCRIPT')) throw err;
      return this.#client.eval(script.lua, 1, key, ...args);
    });
    try {
      const out = await Promise.race([call, deadline]);
      if (this.#up !== true) this.#report(true);
      return out;
    } catch (err) {
      // The race's loser must not be an unhandled rejection.
      call.catch(() => {});
      this.#restingUntil = Date.now() + RETRY_MS;
      this.#report(false, err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Announces this node as live and counts the live nodes (every HEARTBEAT_MS, and on connecting). */
  beat(timeoutMs = this.#timeoutMs): void {
    if (this.#client.status !== 'ready') return;
    this.run(HEARTBEAT, NODES_KEY, [this.#member, Date.now(), ALIVE_MS], timeoutMs).then(
      (n) => {
        this.#nodes = Number(n);
        if (this.#reportsNodes) this.#metrics.set(Metric.redisNodes, this.#nodes);
        // A heartbeat answered after a failure: Redis is back for the limits too.
        this.#restingUntil = 0;
        this.#report(true);
        this.#settleStart();
      },
      () => this.#settleStart(),
    );
  }

  /**
   * A Redis that evicts keys at its maxmemory lifts the limits: under
   * `volatile-ttl` a flood of failed authentications from many addresses
   * evicted the accounts' rate keys first (their TTL is the shorter), and an
   * account got 592 requests a minute. Under `noeviction` a full Redis
   * refuses the writes, and the nodes decide with their share (the
   * degraded mode of docs/cluster.md). Said once a connection, by the
   * first thread; a Redis whose CONFIG is refused or renamed (managed
   * services) is not asked.
   */
  async #checkEviction(): Promise<void> {
    let policy: string;
    let maxmemory: string;
    try {
      policy = ((await this.#client.config('GET', 'maxmemory-policy')) as string[])[1];
      maxmemory = ((await this.#client.config('GET', 'maxmemory')) as string[])[1];
    } catch {
      return;
    }
    if (policy === undefined || policy === 'noeviction' || maxmemory === '0') return;
    log('warn', 'redis_evicts_limits', { policy, maxmemory: Number(maxmemory), remedy: 'set maxmemory-policy noeviction on the limits\' Redis: an evicted key lifts its limit' });
  }

  #report(up: boolean, err?: Error): void {
    if (this.#closing || (up && this.#client.status !== 'ready')) return;
    if (up === this.#up) return;
    this.#up = up;
    this.#metrics.set(Metric.redisConnected, up ? 1 : 0);
    if (up) log('info', 'redis_connected', { nodes: this.#nodes });
    else log('warn', 'redis_unavailable', { error: err?.message ?? 'connection closed', share_of_nodes: this.#nodes || 1 });
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#heartbeat);
    this.#client.disconnect();
  }
}
