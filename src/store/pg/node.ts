// A node's link to the cluster, run by the server's main thread: the
// replica kept current (LISTEN on the change channel, and a catch-up pass
// every second in case a notification was missed), reconnection after
// PostgreSQL went away, the node's heartbeat row in `nodes`, and the status
// every server thread reads for /readyz and the limiters' local share.
// The status is written only here, into the slots cluster-status.ts lays out.
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileDurably } from '../../durable-file.js';
import { AppError } from '../../errors.js';
import { log } from '../../log.js';
import { readRegularFile } from '../../regular-file.js';
import type { ExperimentLimits } from '../experiments-store.js';
import type { Storage } from '../storage.js';
import { CHANNEL } from './changes.js';
import { type Client, connect, describe, isUnavailable, storageError, unavailable } from './client.js';
import { migrate } from './migrations.js';
import { APPLIED, CONNECTED, LAG } from './cluster-status.js';

const POLL_MS = 1000;
const HEARTBEAT_MS = 2000;
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 4000;
/** How long a stop waits for PostgreSQL to free the node's name. */
const RELEASE_TIMEOUT_MS = 1000;
/** A node whose heartbeat is older than this is not counted live, and its name may be taken. */
export const NODE_STALE_S = 10;
/**
 * In the data directory, JSON: the process that last held the node's name
 * from it (`instance`) and the directory it was written in (`dir`:
 * dirIdentity). Not in the store, whose backups would carry it elsewhere.
 */
const INSTANCE_FILE = 'node-instance';

/** This very directory, not a copy of it (cp -a, a restored image): host name, device and inode. */
function dirIdentity(dataDir: string): string {
  const { dev, ino } = statSync(dataDir);
  return `${os.hostname()}:${dev}:${ino}`;
}

/**
 * The process that last held the name from this data directory, which is
 * gone (the directory's lock is this process's: data-lock.ts); null when
 * there is none to trust. A file written in another directory (this one is
 * a copy) may name a process running there, and one that cannot be read
 * names nobody: either costs a wait for that holder's heartbeat to age.
 */
function previousHolder(dataDir: string): string | null {
  const file = path.join(dataDir, INSTANCE_FILE);
  try {
    const kept = JSON.parse(readRegularFile(file).toString('utf8')) as { instance?: unknown; dir?: unknown };
    return typeof kept.instance === 'string' && kept.dir === dirIdentity(dataDir) ? kept.instance : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log('warn', 'node_instance_unreadable', { file, error: err });
    return null;
  }
}
/**
 * Changes kept in the log: a node further behind than this (stopped for a
 * long while) takes a snapshot instead (replica.ts).
 */
const CHANGES_KEPT = 100_000;
/**
 * The log is bounded in bytes too (SPLITGUARD_CHANGE_LOG_MB): a change holds
 * its whole record, a route up to about 21 KB (8 variants of 2,048-character
 * URLs), and a tenant rewriting one within its budgets held 100,000 of them,
 * 2.1 GB, which a node back from an hour away read to catch up (the cluster
 * tenant review of 2026-11-29). The newest changes within the bound are
 * kept; as with the count, a node behind them takes a snapshot. Measuring
 * is a scan of the log, so it runs every BYTES_TRIM_BEATS heartbeats.
 */
const BYTES_TRIM_BEATS = 15;
/**
 * The settings a cluster's nodes must share, which each node publishes in
 * its row of `nodes` (migration 6). Each is read and enforced by every node
 * on its own: the sketch prune takes the longest retention among the live
 * nodes (sketch-prune.ts), so a shorter one deletes nothing another still
 * reads; a quota differing between nodes holds a tenant to whichever node
 * answers. A node that sees a live one publishing another value warns
 * (cluster_settings_differ), once per node, setting and value; it keeps
 * serving, as during a rolling change of the setting.
 */
export type NodeSettings = Required<ExperimentLimits>;

/** Each published setting: its variable, and its column in `nodes`. */
export const SHARED_SETTINGS = [
  { key: 'sketchDays', variable: 'SPLITGUARD_SKETCH_DAYS', column: 'sketch_days' },
  { key: 'conversionQuota', variable: 'SPLITGUARD_CONVERSION_QUOTA', column: 'conversion_quota' },
] as const;

export interface NodeReport {
  /** The IP database this node serves: its version (as /healthz reports it) and current.trie's SHA-256, or nulls. */
  ipdb(): { version: string | null; sha256: string | null };
  /** 'connected' or 'local' (limits enforced per node). */
  redis(): string;
  ready(): boolean;
}

export class ClusterNode {
  readonly #storage: Storage;
  readonly #status: Float64Array;
  readonly #report: NodeReport;
  readonly #started = new Date();
  #listener: Client | null = null;
  #reconnectMs = RECONNECT_MIN_MS;
  #reconnect: NodeJS.Timeout | undefined;
  #poll: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  /** The newest head announced; the replica is behind while it has applied less. */
  #head = 0;
  #behindSince = 0;
  #stopped = false;
  /** This process: `<node name>:<16 hex digits>` (main.ts), the holder of the name in `nodes`. */
  readonly #instance: string;
  readonly #dataDir: string;
  /** previousHolder(), read at start. */
  #previous: string | null = null;
  /** INSTANCE_FILE names this process (written at its first claim). */
  #remembered = false;
  /** A beat found the name held by another live process. */
  #nameLost = false;
  #onNameLost: (() => void) | null = null;
  /** The beat under way, awaited by stop(). */
  #beating: Promise<void> | null = null;

  readonly #changeLogBytes: number;
  #beats = 0;
  readonly #settings: NodeSettings;
  /** `<node>\0<variable>\0<value>` of each difference already warned of. */
  readonly #differencesSeen = new Set<string>();

  constructor(storage: Storage, status: SharedArrayBuffer, report: NodeReport, identity: { instance: string; dataDir: string }, changeLogBytes: number, settings: NodeSettings) {
    this.#settings = settings;
    this.#storage = storage;
    this.#status = new Float64Array(status);
    this.#report = report;
    this.#instance = identity.instance;
    this.#dataDir = identity.dataDir;
    this.#changeLogBytes = changeLogBytes;
  }

  /**
   * Called once another live process holds the node's name (a heartbeat
   * found it taken: this node was away from PostgreSQL for longer than
   * NODE_STALE_S, or its start was degraded): the server stops, so that two
   * processes do not write under one name. Set once the server can stop.
   */
  set onNameLost(handler: () => void) {
    this.#onNameLost = handler;
    if (this.#nameLost) handler();
  }

  get #link() {
    return this.#storage.cluster!;
  }

  /**
   * Migrates the schema and brings the replica up to date, then runs
   * `whileLocked` (the first start's bootstrap) under the migration lock, so
   * that nodes starting together bootstrap once; then claims the node's name
   * (#writeRow), refusing the start when another running process holds it.
   * PostgreSQL unreachable: a node with a replica starts from it (degraded,
   * its name claimed by the first heartbeat that reaches PostgreSQL); one
   * without cannot.
   */
  async start(whileLocked: () => Promise<void>): Promise<void> {
    this.#previous = previousHolder(this.#dataDir);
    try {
      await migrate(this.#link.pool, async () => {
        // Reached: writes (the bootstrap's) may go ahead.
        this.#status[CONNECTED] = 1;
        await this.#link.replica.catchUp();
        await whileLocked();
      });
      // Before anything this node does under its name (click batches, the refresh election).
      const held = await this.#writeRow();
      if (held !== null) throw new AppError('node_name_in_use', `${this.#link.config.nodeName} (its last heartbeat ${held} s ago; a node counts as stopped ${NODE_STALE_S} s after its last)`);
    } catch (err) {
      if (err instanceof AppError && err.code === 'node_name_in_use') throw err;
      this.#status[CONNECTED] = 0;
      if (!isUnavailable(err)) throw storageError(err);
      // Nothing to serve from: a node's first start needs PostgreSQL.
      if (this.#link.replica.applied === 0) throw unavailable(err, `a new node needs PostgreSQL to start (${describe(err)})`);
      log('error', 'cluster_start_degraded', { node: this.#link.config.nodeName, applied: this.#link.replica.applied, error: err });
    }
    this.#status[APPLIED] = this.#link.replica.applied;
    await this.#listen();
    this.#poll = setInterval(() => void this.#catchUp(), POLL_MS);
    this.#poll.unref();
    this.#heartbeat = setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#heartbeat.unref();
    await this.#beat();
  }

  async #listen(): Promise<void> {
    if (this.#stopped) return;
    try {
      const client = await connect(this.#link.config.databaseUrl, `splitguard ${this.#link.config.nodeName} listener`);
      // Stopped while connecting: a listener kept now would keep the process alive.
      if (this.#stopped) {
        await client.end().catch(() => {});
        return;
      }
      client.on('notification', (n) => {
        const head = Number(n.payload);
        if (head > this.#head) this.#head = head;
        void this.#catchUp();
      });
      client.on('error', (err) => this.#lost(client, err));
      client.on('end', () => this.#lost(client, new Error('the connection ended')));
      await client.query(`LISTEN ${CHANNEL}`);
      this.#listener = client;
      this.#reconnectMs = RECONNECT_MIN_MS;
      this.#connected(true);
      // Changes committed while nobody listened.
      await this.#catchUp();
    } catch (err) {
      this.#lost(null, err);
    }
  }

  #lost(client: Client | null, err: unknown): void {
    if (client !== null && client !== this.#listener) return;
    this.#listener = null;
    client?.removeAllListeners();
    client?.on('error', () => {});
    void client?.end().catch(() => {});
    if (this.#status[CONNECTED] === 1) log('error', 'cluster_database_lost', { error: err });
    this.#connected(false);
    if (this.#stopped) return;
    clearTimeout(this.#reconnect);
    this.#reconnect = setTimeout(() => void this.#listen(), this.#reconnectMs);
    this.#reconnect.unref();
    this.#reconnectMs = Math.min(RECONNECT_MAX_MS, this.#reconnectMs * 2);
  }

  #connected(up: boolean): void {
    const was = this.#status[CONNECTED] === 1;
    this.#status[CONNECTED] = up ? 1 : 0;
    if (up && !was) log('info', 'cluster_database_connected', { node: this.#link.config.nodeName });
  }

  async #catchUp(): Promise<void> {
    const replica = this.#link.replica;
    try {
      if (this.#head > replica.applied && this.#behindSince === 0) this.#behindSince = Date.now();
      await replica.catchUp();
      this.#status[APPLIED] = replica.applied;
      if (replica.applied >= this.#head) this.#behindSince = 0;
    } catch (err) {
      if (!isUnavailable(err)) log('error', 'replica_catch_up_failed', { error: err });
      else if (this.#listener === null) this.#connected(false);
    }
    this.#status[LAG] = this.#behindSince === 0 ? 0 : Date.now() - this.#behindSince;
  }

  #beat(): Promise<void> {
    // One at a time: against an unresponsive PostgreSQL a beat waits out its query timeout.
    this.#beating ??= this.#beatOnce().finally(() => (this.#beating = null));
    return this.#beating;
  }

  async #beatOnce(): Promise<void> {
    try {
      const held = await this.#writeRow();
      if (held !== null && !this.#nameLost) {
        this.#nameLost = true;
        log('error', 'node_name_in_use', { node: this.#link.config.nodeName, lastHeartbeatS: held });
        this.#onNameLost?.();
      }
      if (held === null) await this.#compareSettings();
      // Every node trims; the primary key makes it a short range delete.
      await this.#link.pool.query('DELETE FROM changes WHERE seq <= (SELECT seq FROM change_head) - $1', [CHANGES_KEPT]);
      if (this.#beats++ % BYTES_TRIM_BEATS === 0) {
        // The newest change past the bound, counted from the head down, and every older one.
        await this.#link.pool.query(
          `DELETE FROM changes WHERE seq <= (
             SELECT seq FROM (SELECT seq, sum(pg_column_size(changes.*)) OVER (ORDER BY seq DESC) AS newer FROM changes) t
              WHERE newer > $1 ORDER BY seq DESC LIMIT 1)`,
          [this.#changeLogBytes],
        );
      }
    } catch (err) {
      if (!isUnavailable(err)) log('warn', 'cluster_heartbeat_failed', { error: err });
      // PostgreSQL unreachable though the listening connection has not
      // noticed (a network split sends no reset): start over from listening.
      else if (this.#listener !== null) this.#lost(this.#listener, err);
      else this.#connected(false);
    }
  }

  /** Warns of each live node publishing a setting other than this node's (NodeSettings), once per node, setting and value. */
  async #compareSettings(): Promise<void> {
    const { rows } = await this.#link.pool.query<{ name: string; sketch_days: number | null; conversion_quota: number | null }>(
      `SELECT name, sketch_days, conversion_quota FROM nodes
        WHERE name <> $1 AND last_seen > now() - interval '${NODE_STALE_S} seconds' ORDER BY name`,
      [this.#link.config.nodeName],
    );
    for (const row of rows) {
      for (const { key, variable, column } of SHARED_SETTINGS) {
        const theirs = row[column];
        const ours = this.#settings[key];
        // A node of the version before publishes nothing.
        if (theirs === null || theirs === ours) continue;
        const seen = `${row.name}\0${variable}\0${theirs}`;
        if (this.#differencesSeen.has(seen)) continue;
        this.#differencesSeen.add(seen);
        log('warn', 'cluster_settings_differ', {
          setting: variable, value: ours, otherNode: row.name, otherValue: theirs,
          remedy: `give every node the same ${variable}`,
        });
      }
    }
  }

  /** Once this process holds the name: INSTANCE_FILE names it, for the next start from this directory. */
  #remember(): void {
    if (this.#remembered) return;
    this.#remembered = true;
    const file = path.join(this.#dataDir, INSTANCE_FILE);
    try {
      writeFileDurably(file, `${JSON.stringify({ instance: this.#instance, dir: dirIdentity(this.#dataDir) })}\n`);
    } catch (err) {
      // The next start from here then waits for this process's heartbeat to age.
      log('warn', 'node_instance_unwritable', { file, error: err });
    }
  }

  /**
   * Writes this node's row in `nodes` under its name, which one process holds
   * at a time: two nodes sharing a name would share a click writer, whose
   * batches would pass for each other's repeats (docs/cluster.md). The row is
   * taken when it names no process (a node from before migration 3), this
   * one, this data directory's previous one, or one that has not beaten for
   * NODE_STALE_S; otherwise nothing changes. Null when written, else how many
   * seconds ago the holder last beat.
   */
  async #writeRow(): Promise<number | null> {
    const ipdb = this.#report.ipdb();
    const written = await this.#link.pool.query(
      `INSERT INTO nodes (name, started_at, last_seen, applied_seq, lag_ms, ready, ipdb_version, ipdb_sha256, redis, instance, sketch_days, conversion_quota)
       VALUES ($1, $2, now(), $3, $4, $5, $6, $7, $8, $9, $11, $12)
       ON CONFLICT (name) DO UPDATE SET started_at = EXCLUDED.started_at, last_seen = now(), applied_seq = EXCLUDED.applied_seq,
         lag_ms = EXCLUDED.lag_ms, ready = EXCLUDED.ready, ipdb_version = EXCLUDED.ipdb_version, ipdb_sha256 = EXCLUDED.ipdb_sha256,
         redis = EXCLUDED.redis, instance = EXCLUDED.instance, sketch_days = EXCLUDED.sketch_days, conversion_quota = EXCLUDED.conversion_quota
       WHERE nodes.instance IS NULL OR nodes.instance = EXCLUDED.instance OR nodes.instance = $10
         OR nodes.last_seen < now() - interval '${NODE_STALE_S} seconds'
       RETURNING name`,
      [
        this.#link.config.nodeName, this.#started, this.#link.replica.applied, Math.round(this.#status[LAG]), this.#report.ready(),
        ipdb.version, ipdb.sha256, this.#report.redis(), this.#instance, this.#previous,
        this.#settings.sketchDays, this.#settings.conversionQuota,
      ],
    );
    if (written.rowCount === 1) {
      this.#remember();
      return null;
    }
    const { rows } = await this.#link.pool.query<{ ago: number }>('SELECT floor(extract(epoch FROM now() - last_seen))::int AS ago FROM nodes WHERE name = $1', [this.#link.config.nodeName]);
    return rows[0]?.ago ?? 0;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#reconnect);
    clearInterval(this.#poll);
    clearInterval(this.#heartbeat);
    const client = this.#listener;
    this.#listener = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
    // The name is free at once for a node on another data directory (a
    // stopped node's row stays, for `cluster status`), after the beat under
    // way, which would take it again. PostgreSQL away or slow: the name is
    // free once its heartbeat is NODE_STALE_S old; a stop does not wait for it.
    let timer: NodeJS.Timeout | undefined;
    const release = async () => {
      await this.#beating;
      if (this.#status[CONNECTED] !== 1) return;
      await this.#link.pool.query('UPDATE nodes SET instance = NULL WHERE name = $1 AND instance = $2', [this.#link.config.nodeName, this.#instance]).catch(() => {});
    };
    await Promise.race([release(), new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_TIMEOUT_MS)))]);
    clearTimeout(timer);
  }
}
