// The database refresh (contract §7): try each source node in order until one
// yields a complete, valid download; build it off the serving threads
// (piscina); check it against the current database; install it by rename;
// hand it to the caller to swap in. Any failure leaves the current database
// serving. The outcome of every attempt, per node, is kept in LMDB for
// GET /v1/ip/database, and the next due time is stored so that the schedule
// survives restarts.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { log } from '../log.js';
import type { Stores } from '../store/db.js';
import type { BuildResult, BuildTask } from './build.worker.js';
import { binding } from './native.js';
import { currentDatabasePath } from './current.js';
import { IpDatabase } from './database.js';
import { DEFAULT_LIMITS, type FetchLimits, fetchNode, nodeName, type Validators } from './fetch.js';
import { databaseGeneration, META_GENERATION, META_LAST, META_NEXT, META_VALIDATORS, type NodeOutcome, type RefreshRecord } from './refresh-state.js';

export { databaseGeneration, lastRefresh, nextRefreshAt, type RefreshRecord } from './refresh-state.js';

/** A new database must keep at least this share of the current one's ranges (per family). */
export const MIN_RANGE_FRACTION = 0.5;
/** Addresses any complete ASN database resolves; a candidate that misses one is refused. */
export const WELL_KNOWN = ['8.8.8.8', '1.1.1.1', '9.9.9.9', '2001:4860:4860::8888', '2606:4700:4700::1111'];

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build.worker.js');

export interface RefresherOptions {
  dataDir: string;
  stores: Stores;
  sources: string[];
  limits?: FetchLimits;
  /** Called with the installed file's keyword tables once current.trie is replaced. */
  onInstalled?: (result: BuildResult) => Promise<void>;
}

export class Refresher {
  readonly #o: RefresherOptions;
  #running: Promise<RefreshRecord> | null = null;
  #startedAt = 0;
  #pool: Piscina | null = null;

  constructor(options: RefresherOptions) {
    this.#o = options;
  }

  /** When a refresh is running: its start time (ms); else 0. */
  get runningSince(): number {
    return this.#running ? this.#startedAt : 0;
  }

  /** Starts a refresh, or joins the one already running. */
  start(trigger: string): Promise<RefreshRecord> {
    if (!this.#running) {
      this.#startedAt = Date.now();
      this.#running = this.#run(trigger).finally(() => {
        this.#running = null;
      });
    }
    return this.#running;
  }

  async close(): Promise<void> {
    await this.#running?.catch(() => {});
    await this.#pool?.destroy();
    this.#pool = null;
  }

  async #run(trigger: string): Promise<RefreshRecord> {
    const { stores, dataDir } = this.#o;
    const started = new Date();
    const work = path.join(dataDir, 'ipdb', `refresh-${started.getTime()}`);
    mkdirSync(work, { recursive: true });
    // The validators say what was downloaded last, not what is installed: a
    // current.trie that is missing or damaged since is rebuilt whatever they
    // say (no conditional request, so an unchanged source answers 200).
    const damage = installedDamage(currentDatabasePath(dataDir));
    if (damage !== null) log('warn', 'ipdb_installed_invalid', { file: currentDatabasePath(dataDir), error: damage });
    const known = damage === null ? ((stores.meta.get(META_VALIDATORS) as Record<string, Validators> | undefined) ?? {}) : {};
    const nodes: NodeOutcome[] = [];
    let record: Omit<RefreshRecord, 'finished_at'> | null = null;
    log('info', 'ipdb_refresh_started', { trigger, nodes: this.#o.sources.map(nodeName) });
    try {
      for (const node of this.#o.sources) {
        const t0 = performance.now();
        const source = nodeName(node);
        try {
          const fetched = await fetchNode(node, work, known, this.#o.limits ?? DEFAULT_LIMITS);
          if (fetched.unchanged) {
            nodes.push({ source, outcome: 'unchanged', error: null, ms: Math.round(performance.now() - t0) });
            record = { trigger, started_at: started.toISOString(), outcome: 'unchanged', source, version: null, nodes, error: null };
            break;
          }
          const version = node === 'package:' ? source.replace(/^package .*@/, '') : started.toISOString().slice(0, 16).replace('T', ' ');
          const result = await this.#build({
            files: fetched.parts.map((p) => p.file!),
            out: path.join(work, 'candidate.trie'),
            cacheDir: path.dirname(currentDatabasePath(dataDir)),
            sourceName: source,
            dataVersion: version,
          });
          this.#check(result);
          const current = currentDatabasePath(dataDir);
          mkdirSync(path.dirname(current), { recursive: true });
          renameSync(path.join(work, 'candidate.trie'), current);
          for (const p of fetched.parts) known[p.url] = p.validators;
          await stores.root.transaction(() => {
            stores.meta.put(META_VALIDATORS, known);
            stores.meta.put(META_GENERATION, databaseGeneration(stores) + 1);
          });
          nodes.push({ source, outcome: 'updated', error: null, ms: Math.round(performance.now() - t0) });
          record = { trigger, started_at: started.toISOString(), outcome: 'updated', source, version, nodes, error: null };
          await this.#o.onInstalled?.(result);
          break;
        } catch (err) {
          const error = (err as Error).message;
          nodes.push({ source, outcome: 'failed', error, ms: Math.round(performance.now() - t0) });
          log('warn', 'ipdb_source_failed', { source, error });
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
      // The build thread ends with the refresh (a daily job; a new one
      // starts in ~50 ms), and the C heap it grew goes back to the system:
      // kept, it stayed as ~25 MiB of the server's RSS after a refresh
      // under load (docs/reliability.md, the soak).
      await this.#pool?.destroy();
      this.#pool = null;
      binding.trimMemory();
    }
    const finished: RefreshRecord = {
      ...(record ?? { trigger, started_at: started.toISOString(), outcome: 'failed', source: null, version: null, nodes, error: 'every source failed; the current database keeps serving' }),
      finished_at: new Date().toISOString(),
    };
    await stores.meta.put(META_LAST, finished);
    log(finished.outcome === 'failed' ? 'error' : 'info', 'ipdb_refresh_finished', { outcome: finished.outcome, source: finished.source, nodes });
    return finished;
  }

  async #build(task: BuildTask): Promise<BuildResult> {
    this.#pool ??= new Piscina({ filename: WORKER_FILE, minThreads: 0, maxThreads: 1, idleTimeout: 10_000 });
    const result = (await this.#pool.run(task)) as BuildResult;
    if (!result.idleScheduling) log('warn', 'ipdb_build_not_idle', { reason: 'the system refused SCHED_IDLE for the build thread; the build competed with serving at normal priority' });
    return result;
  }

  // Sanity of a candidate against the current database (contract §7).
  #check(result: BuildResult): void {
    const candidate = IpDatabase.open(result.info.path);
    try {
      for (const ip of WELL_KNOWN) {
        if (candidate.lookupText(ip) <= 0) throw new Error(`the new database does not resolve ${ip}`);
      }
      let current: IpDatabase | null = null;
      try {
        current = IpDatabase.open(currentDatabasePath(this.#o.dataDir));
      } catch {
        return; // nothing to compare with
      }
      try {
        for (const family of ['v4', 'v6'] as const) {
          const now = current.info.ranges[family];
          const next = candidate.info.ranges[family];
          if (next < now * MIN_RANGE_FRACTION) {
            throw new Error(`the new database has ${next} ${family} ranges, under ${MIN_RANGE_FRACTION * 100}% of the current ${now}`);
          }
        }
      } finally {
        current.close();
      }
    } finally {
      candidate.close();
    }
  }
}

/** Why the installed database cannot serve (its ipdb_* code, or ipdb_missing), or null when it opens and validates. */
export function installedDamage(file: string): string | null {
  if (!existsSync(file)) return 'ipdb_missing';
  try {
    IpDatabase.open(file).close();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'ipdb_open_failed';
  }
}

/** Removes work directories a crash left behind. */
export function cleanRefreshLeftovers(dataDir: string): void {
  const dir = path.join(dataDir, 'ipdb');
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith('refresh-')) rmSync(path.join(dir, name), { recursive: true, force: true });
}

/**
 * The next due time after `now`: the interval plus up to 10% (at most an
 * hour) of random jitter, so that many installations do not all fetch at once.
 */
export function nextDue(now: number, hours: number): number {
  const interval = hours * 3_600_000;
  return now + interval + Math.floor(Math.random() * Math.min(interval * 0.1, 3_600_000));
}

export async function storeNextDue(stores: Stores, at: number): Promise<void> {
  await stores.meta.put(META_NEXT, at);
}
