// One refresh per cluster (docs/cluster.md): the node holding a PostgreSQL
// advisory lock is the refresh leader and the only one that runs the daily,
// feed and triggered refreshes; what it installs it also publishes (the
// newest row of ipdb_files with its SHA-256, announced by an 'ipdb' change:
// pg/backend.ts databaseInstalled). Every node follows the announcements:
// downloads the published file, checks its size and SHA-256, lets the native
// reader validate it, installs it as current.trie and swaps its threads to
// it (serve/database-swapper.ts).
//
// A trigger that reaches another node (POST /v1/ip/update: the allowance is
// taken in PostgreSQL by whichever node answers) is handed to the leader as
// the replicated state REFRESH_REQUEST, which the leader follows.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFileDurably } from '../../durable-file.js';
import { IpDatabase } from '../../ipdb/database.js';
import { log } from '../../log.js';
import type { Storage } from '../storage.js';
import { type Client, connect } from './client.js';
import { META_PUBLISHED } from './replica.js';

/** Arbitrary, fixed: the advisory lock whose holder is the refresh leader. */
const REFRESH_LOCK = 0x5347_0002;
/** How often a node that is not the leader tries to become it (and a lost leader notices). */
const LEADER_POLL_MS = 2000;
/** State name of a refresh asked for through a node that is not the leader. */
export const REFRESH_REQUEST = 'ipdb_refresh_request';

export interface RefreshRequest {
  at: number;
  trigger: string;
}

/** The database the cluster serves, as its 'ipdb' change announced it. */
export interface Published {
  version: number;
  sha256: string;
  size: number;
}

/**
 * Leadership: a session-level advisory lock held on a connection of its
 * own. The lock goes when that connection does (the node died, or lost
 * PostgreSQL), and another node takes it within LEADER_POLL_MS.
 */
export class RefreshLeader {
  readonly #url: string;
  readonly #name: string;
  #client: Client | null = null;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #trying = false;
  /** Called when this node becomes the leader. */
  onElected: () => void = () => {};

  constructor(url: string, nodeName: string) {
    this.#url = url;
    this.#name = nodeName;
  }

  get isLeader(): boolean {
    return this.#client !== null;
  }

  start(): Promise<void> {
    this.#timer = setInterval(() => void this.#try(), LEADER_POLL_MS);
    this.#timer.unref();
    return this.#try();
  }

  async #try(): Promise<void> {
    if (this.#client !== null || this.#stopped || this.#trying) return;
    this.#trying = true;
    let client: Client | null = null;
    try {
      client = await connect(this.#url, `splitguard ${this.#name} refresh leader`);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [REFRESH_LOCK]);
      if (!rows[0].ok || this.#stopped) {
        await client.end();
        return;
      }
      const held = client;
      const lost = () => {
        if (this.#client !== held) return;
        this.#client = null;
        log('warn', 'refresh_leader_lost', { node: this.#name });
        void held.end().catch(() => {});
      };
      held.on('error', lost);
      held.on('end', lost);
      this.#client = held;
      log('info', 'refresh_leader', { node: this.#name });
      this.onElected();
    } catch {
      // PostgreSQL away: try again on the next tick.
      await client?.end().catch(() => {});
    } finally {
      this.#trying = false;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    const client = this.#client;
    this.#client = null;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}

/** SHA-256 (hex) of a file, or null when it cannot be read. */
function fileSha256(file: string): string | null {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
}

/**
 * Follows the published database: when the announced file is not the one
 * installed here, downloads, checks, installs and swaps to it. One install
 * at a time; a newer announcement during one is handled after it.
 */
export class PublishedDatabase {
  readonly #storage: Storage;
  readonly #currentFile: string;
  readonly #swap: () => Promise<void>;
  #running: Promise<void> = Promise.resolve();
  /** SHA-256 of current.trie as this node installed it last (follow() installs nothing it has). */
  #localSha: string | null;
  /**
   * SHA-256 of the file every thread serves: #localSha once the swap to it
   * is done, so the heartbeat never pairs a new file's SHA-256 with the
   * version of the database the threads still serve.
   */
  #servedSha: string | null;

  constructor(storage: Storage, currentFile: string, swap: () => Promise<void>) {
    this.#storage = storage;
    this.#currentFile = currentFile;
    this.#swap = swap;
    this.#localSha = fileSha256(currentFile);
    this.#servedSha = this.#localSha;
    storage.feed.on(['ipdb'], () => void this.follow());
  }

  /** SHA-256 of the file this node's threads serve, for its heartbeat (`cluster status` compares it with the published file's). */
  servingSha(): string | null {
    return this.#servedSha;
  }

  published(): Published | null {
    return this.#storage.state.get<Published>(META_PUBLISHED) ?? null;
  }

  /** This node installed current.trie itself (it refreshed as the leader): remember what it is, and `swap` its threads to it. */
  async installedLocally(swap: () => Promise<void>): Promise<void> {
    const sha = fileSha256(this.#currentFile);
    this.#localSha = sha;
    await swap();
    this.#servedSha = sha;
  }

  /** Installs the published file unless it is installed already; never rejects. */
  follow(): Promise<void> {
    this.#running = this.#running.then(() => this.#follow()).catch((err: unknown) => log('error', 'ipdb_published_install_failed', { error: err }));
    return this.#running;
  }

  async #follow(): Promise<void> {
    const published = this.published();
    if (published === null || published.sha256 === this.#localSha) return;
    const pool = this.#storage.cluster!.pool;
    const { rows } = await pool.query<{ data: Buffer }>('SELECT data FROM ipdb_files WHERE version = $1 AND sha256 = $2', [published.version, published.sha256]);
    // Superseded meanwhile (the leader keeps two): the newer announcement follows.
    if (rows.length === 0) return;
    const data = rows[0].data;
    const sha256 = createHash('sha256').update(data).digest('hex');
    if (data.length !== published.size || sha256 !== published.sha256) {
      throw new Error(`published database ${published.version} has ${data.length} bytes and SHA-256 ${sha256}, announced ${published.size} and ${published.sha256}`);
    }
    // The native reader validates the whole file (structure, checksum) before it replaces current.trie.
    writeFileDurably(this.#currentFile, data, 0o644, (tmp) => IpDatabase.open(tmp).close());
    this.#localSha = sha256;
    log('info', 'ipdb_published_installed', { version: published.version, size: data.length, sha256 });
    await this.#swap();
    this.#servedSha = sha256;
  }

}
