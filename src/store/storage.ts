// The one seam between splitguard and its storage. The API, the console, the
// redirect's caches, the refresh and the CLI see these repositories and the
// change feed, never a database handle; which back end writes (LMDB on a
// single node, PostgreSQL in cluster mode) is decided here, once.
//
// Reads are synchronous, from the local LMDB store (on a single node the
// whole store, in cluster mode the node's replica of what the redirect and
// authentication read), so the redirect and the key check never wait on the
// network. Writes are asynchronous and resolve once committed and visible to
// this process. Every cache follows the feed.
import type { Backend } from './backend.js';
import { Accounts, Keys, Users } from './accounts-store.js';
import { BlacklistChanges } from './blacklist-changes.js';
import { openStores, type Stores } from './db.js';
import { type ExperimentLimits, Experiments, Secrets } from './experiments-store.js';
import { FeedReader } from './feed.js';
import { LmdbBackend } from './lmdb-backend.js';
import type { Pool } from './pg/client.js';
import type { Replica } from './pg/replica.js';
import { Routes } from './routes-store.js';
import { SessionStore } from './sessions-store.js';
import { StateStore } from './state-store.js';
import { Stats } from './stats-store.js';

export interface Storage {
  readonly backend: Backend['kind'];
  readonly accounts: Accounts;
  readonly keys: Keys;
  readonly users: Users;
  readonly sessions: SessionStore;
  readonly routes: Routes;
  readonly blacklist: BlacklistChanges;
  readonly stats: Stats;
  readonly state: StateStore;
  readonly experiments: Experiments;
  readonly secrets: Secrets;
  /** This thread's reader of the change feed, shared by its caches. */
  readonly feed: FeedReader;
  /** Cluster mode: this thread's link to PostgreSQL and the replica it feeds; null on a single node. */
  readonly cluster: ClusterLink | null;
  /**
   * Cluster mode: the writers of the slots above `threads` that still hold
   * batches kept at a stop (the node ran more threads then), for the first
   * thread to send; none on a single node.
   */
  leftBehind(threads: number): KeptWriter[];
  /** Click and visit batches kept at a stop in cluster mode (any slot), which only a cluster node sends. */
  keptBatches(): number;
  /** Waits for pending writes (cutting PostgreSQL's still busy at `until`, wall time) and closes the back end and the local store. */
  close(until?: number): Promise<void>;
}

export interface ClusterSettings {
  databaseUrl: string;
  nodeName: string;
  /** Which server thread this is (its click batches' writer, `<node>/<slot>`); 0 elsewhere. */
  slot?: number;
  /** Connections this process (thread) may open to PostgreSQL. */
  poolSize?: number;
  /** Whether the node is connected to PostgreSQL now (pg/node.ts): while not, writes fail fast with storage_unavailable. */
  connected?: () => boolean;
}

interface ClusterLink {
  readonly config: ClusterSettings;
  readonly pool: Pool;
  readonly replica: Replica;
}

/** A slot's kept click and visit batches, as its own writer sends them. */
export interface KeptWriter {
  slot: number;
  stats: Stats;
  experiments: Experiments;
}

/** The writers of a slot: its click batches under `<node>/<slot>`, its visit batches under `<node>/<slot>/visits`. */
function slotWriters(stores: Stores, backend: Backend, settings: ClusterSettings, slot: number, limits: ExperimentLimits): { stats: Stats; experiments: Experiments } {
  const name = `${settings.nodeName}/${slot}`;
  return { stats: new Stats(backend, stores, { name, slot }), experiments: new Experiments(backend, { name: `${name}/visits`, slot, stores }, limits) };
}

/** Slots above `threads` that hold kept click or visit batches. */
function slotsBeyond(stores: Stores, threads: number): number[] {
  const slots = new Set<number>();
  for (const db of [stores.clickSpill, stores.visitSpill] as const) {
    for (const [slot] of db.getKeys({ start: [threads + 1, 0] }) as Iterable<[number, number]>) slots.add(slot);
  }
  return [...slots].sort((a, b) => a - b);
}

/** The repositories over an open local store and a back end. */
function storageOver(stores: Stores, backend: Backend, cluster: ClusterLink | null, limits: ExperimentLimits): Storage {
  const own = cluster && slotWriters(stores, backend, cluster.config, cluster.config.slot ?? 0, limits);
  return {
    backend: backend.kind,
    accounts: new Accounts(stores, backend),
    keys: new Keys(stores, backend),
    users: new Users(stores, backend),
    sessions: new SessionStore(stores, backend),
    routes: new Routes(stores, backend),
    blacklist: new BlacklistChanges(stores, backend),
    stats: own?.stats ?? new Stats(backend),
    state: new StateStore(stores, backend),
    experiments: own?.experiments ?? new Experiments(backend, null, limits),
    secrets: new Secrets(stores, backend),
    feed: new FeedReader(stores),
    cluster,
    leftBehind: (threads) => (cluster ? slotsBeyond(stores, threads).map((slot) => ({ slot, ...slotWriters(stores, backend, cluster.config, slot, limits) })) : []),
    keptBatches: () => stores.clickSpill.getCount() + stores.visitSpill.getCount(),
    close: async (until) => {
      await backend.close(until);
      // After a failed commit (storage read-only or full) this rejects; what
      // could not be written has been logged (commit-errors.ts), and a stop
      // must go on.
      await Promise.resolve(stores.root.flushed).catch(() => {});
      await stores.root.close();
    },
  };
}

export interface StorageOptions {
  /** The server's feed signal (shared by its threads); absent in the CLI. */
  signal?: SharedArrayBuffer;
  /** Cluster mode: PostgreSQL is the back end and the local store its replica. */
  cluster?: ClusterSettings | null;
  /** SPLITGUARD_SKETCH_DAYS and SPLITGUARD_CONVERSION_QUOTA (the server's threads); absent, none (experiments-store.ts). */
  limits?: ExperimentLimits;
}

/**
 * Opens the data directory's store (creating and migrating it) and the back
 * end the configuration asks for. The PostgreSQL back end's modules are
 * loaded only in cluster mode: each thread would otherwise hold their code
 * for nothing on a single node.
 */
export async function openStorage(dataDir: string, options: StorageOptions = {}): Promise<Storage> {
  const stores = openStores(dataDir);
  if (options.signal) stores.signal = new Int32Array(options.signal);
  const settings = options.cluster;
  if (!settings) return storageOver(stores, new LmdbBackend(stores), null, options.limits ?? {});
  const [{ PgBackend }, { createPool }, { Replica }] = await Promise.all([import('./pg/backend.js'), import('./pg/client.js'), import('./pg/replica.js')]);
  // pg.Pool connects lazily: opening never waits on the network.
  const pool = createPool(settings.databaseUrl, `splitguard ${settings.nodeName}`, settings.poolSize ?? 4);
  const replica = new Replica(stores, pool);
  const backend = new PgBackend(pool, replica, settings.nodeName, settings.connected ?? (() => true));
  return storageOver(stores, backend, { config: settings, pool, replica }, options.limits ?? {});
}
