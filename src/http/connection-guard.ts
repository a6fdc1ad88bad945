// The connection guard: caps on the connections the server holds, applied
// from the main thread once a second. uWebSockets.js gives JavaScript no
// per-connection hooks (no accept filter, no close event, no buffered
// amount), so the guard reads the kernel's list of the server's TCP
// connections (native/connection_guard.h) and shuts down the ones a rule
// picks; the owning server thread then sees EOF and closes the connection
// through its normal path (onAborted handlers run, buffers are freed).
//
// Rules, in this order; a connection is shed by the first rule that picks it:
//   not_reading  data waits in the send queue and the client has acknowledged
//                nothing for stallMs (a client that pipelines requests and
//                never reads makes uWS buffer answers without bound);
//   per_address  more than perAddress connections from one remote address
//                (trusted proxies exempt): the excess, idlest first;
//   global       more than `global` connections in all: idlest first, down to
//                the cap, so that accept() keeps finding free descriptors
//                (at EMFILE uSockets retries accept in a busy loop).
// "Idlest" is the longest time since the client last sent data.
//
// ConnectionGuard holds the policy and no timer: the caller ticks it with a
// list and the time, so it is tested with synthetic lists. startConnectionGuard
// ticks it from the main thread with the kernel's list.
import type { Cidr, Config } from '../config.js';
import { parseIp } from '../ipdb/address.js';
import { binding, type NativeConnection, type NativeConnectionGuard } from '../ipdb/native.js';
import { log } from '../log.js';
import { Metric, type Metrics } from '../metrics.js';
import { DEFAULT_SHARE_OF_FILE_LIMIT, type FileLimit } from '../serve/file-limit.js';
import { inCidrs, limitKey } from './client-ip.js';

/** What the policy reads of a connection (a NativeConnection has more). */
export type GuardedConnection = Pick<NativeConnection, 'inode' | 'address' | 'port' | 'sendQueue' | 'bytesAcked' | 'lastReceiveMs'>;

type ShedReason = 'per_address' | 'global' | 'not_reading';

export interface GuardLimits {
  /** Connections one address may hold; 0 = no cap. */
  perAddress: number;
  /** Connections in all; 0 = no cap. */
  global: number;
  /** How long a connection may leave data unacknowledged without the client acknowledging anything; 0 = no limit. */
  stallMs: number;
  /** Exempt from the per-address cap (a load balancer in front). */
  trusted: readonly Cidr[];
}

export interface TickResult {
  /** Inodes to shut down, by the rule that picked them; each inode appears once. */
  shed: Record<ShedReason, number[]>;
  /** Connections accepted (before shedding). */
  connections: number;
}

/** Per inode, while data waits for the client: what it had acknowledged, and since when. */
interface Progress {
  /** The remote end, so that a reused inode number starts afresh. */
  peer: string;
  acked: number;
  sinceMs: number;
}

/** Idlest first; among equals the older socket (smaller inode) first. */
const idlestFirst = (a: GuardedConnection, b: GuardedConnection) => b.lastReceiveMs - a.lastReceiveMs || a.inode - b.inode;

export class ConnectionGuard {
  readonly #limits: GuardLimits;
  readonly #progress = new Map<number, Progress>();

  constructor(limits: GuardLimits) {
    this.#limits = limits;
  }

  /** Inodes whose stall clock is running (for tests). */
  get tracked(): number {
    return this.#progress.size;
  }

  /**
   * Decides what to shed given the current list; `nowMs` is a monotonic
   * clock (performance.now()). Connections not accepted yet (inode 0: still
   * in a listen queue, no descriptor) are neither counted nor shed.
   */
  tick(list: readonly GuardedConnection[], nowMs: number): TickResult {
    const accepted = list.filter((c) => c.inode > 0);
    const shed: TickResult['shed'] = { per_address: [], global: [], not_reading: [] };
    const picked = new Set<number>();
    const pick = (reason: ShedReason, c: GuardedConnection) => {
      picked.add(c.inode);
      shed[reason].push(c.inode);
    };

    // not reading: keeps state across ticks, dropped once the queue drains or
    // the connection is gone.
    const { stallMs, perAddress, global, trusted } = this.#limits;
    const waiting = new Set<number>();
    if (stallMs > 0) {
      for (const c of accepted) {
        if (c.sendQueue === 0 || c.bytesAcked < 0) continue;
        waiting.add(c.inode);
        const peer = `${c.address} ${c.port}`;
        const p = this.#progress.get(c.inode);
        if (!p || p.peer !== peer || p.acked !== c.bytesAcked) {
          this.#progress.set(c.inode, { peer, acked: c.bytesAcked, sinceMs: nowMs });
        } else if (nowMs - p.sinceMs >= stallMs) {
          pick('not_reading', c);
        }
      }
    }
    for (const inode of this.#progress.keys()) if (!waiting.has(inode)) this.#progress.delete(inode);

    // per address
    if (perAddress > 0) {
      // Grouped as the per-address limits count a client: an IPv6 address by
      // its /64 (one host may use any address of it), an IPv4 one as it is.
      const byAddress = new Map<string, GuardedConnection[]>();
      const bytes = new Uint8Array(16);
      for (const c of accepted) {
        if (picked.has(c.inode)) continue;
        const family = parseIp(c.address, bytes);
        if (family !== 0 && trusted.length > 0 && inCidrs(bytes, trusted)) continue;
        const key = family === 6 ? Buffer.from(limitKey(bytes)).toString('hex') : c.address;
        let group = byAddress.get(key);
        if (!group) byAddress.set(key, (group = []));
        group.push(c);
      }
      for (const group of byAddress.values()) {
        if (group.length <= perAddress) continue;
        group.sort(idlestFirst);
        for (let i = 0; i < group.length - perAddress; i++) pick('per_address', group[i]);
      }
    }

    // global
    if (global > 0) {
      const rest = accepted.filter((c) => !picked.has(c.inode));
      if (rest.length > global) {
        rest.sort(idlestFirst);
        for (let i = 0; i < rest.length - global; i++) pick('global', rest[i]);
      }
    }
    return { shed, connections: accepted.length };
  }
}

// --- the main thread's runner ------------------------------------------------

/** The guard acts at this granularity. */
const GUARD_TICK_MS = 1000;

/**
 * Turns the configuration and the open-file limit (serve/file-limit.ts: the
 * raised one, null when unknown) into limits; the global cap defaults to 80%
 * of the limit. Logs the limit and the caps.
 */
export function prepareConnectionLimits(config: Config, fileLimit: FileLimit | null): GuardLimits {
  const global = config.maxConnections ?? (fileLimit && Number.isFinite(fileLimit.soft) ? Math.floor(fileLimit.soft * DEFAULT_SHARE_OF_FILE_LIMIT) : 0);
  const limits: GuardLimits = {
    perAddress: config.maxConnectionsPerAddress,
    global,
    stallMs: config.stallSeconds * 1000,
    trusted: config.trustProxy,
  };
  log('info', 'connection_limits', {
    fileLimit: fileLimit?.soft ?? null,
    fileLimitHard: fileLimit?.hard ?? null,
    maxConnections: global,
    maxConnectionsPerAddress: limits.perAddress,
    stallSeconds: config.stallSeconds,
  });
  return limits;
}

const SHED_COUNTER: Record<ShedReason, number> = {
  per_address: Metric.shedPerAddress,
  global: Metric.shedGlobal,
  not_reading: Metric.shedNotReading,
};

export interface GuardRunner {
  stop(): void;
}

/**
 * Ticks a ConnectionGuard once a second with the kernel's list of the
 * connections on `ports` (read at each tick: the caller may fill it later),
 * shuts down what it picks, counts it in `metrics` and logs one line per
 * tick that shed anything. Null when the kernel interface cannot be opened
 * (logged): the server then runs unguarded.
 */
export function startConnectionGuard(ports: readonly number[], limits: GuardLimits, metrics: Metrics): GuardRunner | null {
  let native: NativeConnectionGuard;
  try {
    native = new binding.ConnectionGuard();
  } catch (err) {
    log('error', 'connection_guard_unavailable', { error: err });
    return null;
  }
  const policy = new ConnectionGuard(limits);
  // A failing listing is logged when it starts failing and when it recovers, not every second.
  let failing = false;
  // Set by a look that closed non-reading connections. Their answers were
  // buffered in large blocks in the server threads' malloc arenas; freed,
  // they mostly stay there (glibc returns only the top of an arena), so the
  // next look, once the threads have closed them, hands the free pages back.
  let trimPending = false;

  const tick = () => {
    if (trimPending) {
      trimPending = false;
      binding.trimMemory();
    }
    const listen = [...new Set(ports.filter((p) => p > 0))];
    if (listen.length === 0) return;
    let shut: Record<ShedReason, number>;
    let connections: number;
    try {
      const result = policy.tick(native.list(listen), performance.now());
      connections = result.connections;
      shut = { per_address: 0, global: 0, not_reading: 0 };
      for (const reason of Object.keys(shut) as ShedReason[]) {
        if (result.shed[reason].length > 0) shut[reason] = native.shutdown(result.shed[reason]);
      }
    } catch (err) {
      if (!failing) log('error', 'connection_guard_failed', { error: err });
      failing = true;
      return;
    }
    if (failing) log('info', 'connection_guard_recovered', {});
    failing = false;
    metrics.set(Metric.connections, connections);
    const total = shut.per_address + shut.global + shut.not_reading;
    if (total === 0) return;
    for (const reason of Object.keys(shut) as ShedReason[]) metrics.inc(SHED_COUNTER[reason], shut[reason]);
    trimPending = shut.not_reading > 0;
    log('warn', 'connections_shed', { ...shut, connections });
  };

  const timer = setInterval(tick, GUARD_TICK_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      native.close();
    },
  };
}
