// The database refresh (contract §7): try each source in order until one
// yields a complete, valid download; build it and check it against the
// current database in a process of its own (runBuild, candidate.ts); install
// it by rename; announce it (every server on the store swaps to it). Any
// failure leaves the current database serving. The outcome of every attempt,
// per source, is kept in the refresh state for GET /v1/ip/database, and the
// next due time is stored so that the schedule survives restarts.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { moveDurably, processAlive } from '../durable-file.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.js';
import { log, logFd } from '../log.js';
import type { StateStore } from '../store/state-store.js';
import { fork } from 'node:child_process';
import type { BuildAnswer, BuildResult, BuildTask } from './build.worker.js';
import { binding } from './native.js';
import { currentDatabasePath } from './current.js';
import { IpDatabase } from './database.js';
import { DEFAULT_LIMITS, DEFAULT_SOURCES, type FetchLimits, fetchSource, inOrder, limitsFor, type SourceFailure, sourceName, spaceShort, type Validators } from './fetch.js';
import { candidateSizeLimit } from './candidate.js';
import { dueAfterClockStep, META_LAST, META_NEXT, META_VALIDATORS, nextRefreshAt, type SourceOutcome, type RefreshRecord } from './refresh-state.js';
import type { Config } from '../config.js';
import { excludedFromAsnFeeds } from '../quality/lists.js';
import { type FeedDefinition, sourcesFor } from './feeds/registry.js';
import { type FeedFile, feedFiles } from './feeds/state.js';
import { dueFeeds, type FeedOutcome, updateFeeds } from './feeds/update.js';

export { databaseGeneration, nextRefreshAt, type RefreshRecord } from './refresh-state.js';

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build.worker.js');

export interface RefresherOptions {
  dataDir: string;
  state: StateStore;
  sources: string[];
  limits?: FetchLimits;
  /** The feeds folded into the database (enabled by configuration), in priority order. */
  feeds?: readonly FeedDefinition[];
  /** A feed's sources (configuration may replace the publisher's; empty: never fetched). */
  feedSources?: (feed: FeedDefinition) => readonly string[];
  /** ASNs no ASN feed may list. */
  excludeAsns?: readonly number[];
  /** Called with the installed file's keyword tables once current.trie is replaced. */
  onInstalled?: (result: BuildResult) => Promise<void>;
  /** The build process's heap limit (SPLITGUARD_BUILD_MEMORY_MB). */
  buildMemoryMb: number;
}

/**
 * What a refresh does: `all` fetches the ASN data and every feed; `feeds`
 * fetches the feeds that are due; `refold` fetches nothing and rebuilds the
 * database when it folds in another set of feeds than the configuration's.
 */
export type RefreshScope = 'all' | 'feeds' | 'refold';

export class Refresher {
  /** The refresher a configuration asks for (the server's and the CLI's alike). */
  static forConfig(config: Config, state: StateStore, onInstalled?: RefresherOptions['onInstalled']): Refresher {
    return new Refresher({
      dataDir: config.dataDir,
      state,
      sources: config.ipdbSources ?? DEFAULT_SOURCES,
      limits: limitsFor(config.ipdbFetchTimeoutMs),
      feeds: config.feeds,
      feedSources: (feed) => sourcesFor(config.feedSources, feed),
      excludeAsns: excludedFromAsnFeeds(),
      onInstalled,
      buildMemoryMb: config.buildMemoryMb,
    });
  }

  readonly #options: RefresherOptions;
  #running: Promise<RefreshRecord> | null = null;
  #runningScope: RefreshScope = 'all';
  /** A full refresh asked for while a feeds-only one runs: it starts when that one ends. */
  #queuedFull: Promise<RefreshRecord> | null = null;
  #startedAt = 0;
  /** Aborted by close(): the downloads and the build under way end at once, and no other starts. */
  readonly #stop = new AbortController();

  constructor(options: RefresherOptions) {
    this.#options = options;
  }

  /** When a refresh is running: its start time (ms); else 0. */
  get runningSince(): number {
    return this.#running ? this.#startedAt : 0;
  }

  /**
   * Starts a refresh, or joins the one already running. A full refresh asked
   * for during a feeds-only or refold one does not join it (the ASN data would
   * not be refreshed): it runs right after it, once however often it is asked for.
   */
  start(trigger: string, scope: RefreshScope = 'all'): Promise<RefreshRecord> {
    if (this.#running && scope === 'all' && this.#runningScope !== 'all') {
      this.#queuedFull ??= this.#running
        .catch(() => undefined)
        .then(() => {
          this.#queuedFull = null;
          return this.start(trigger, 'all');
        });
      return this.#queuedFull;
    }
    if (!this.#running) {
      this.#startedAt = Date.now();
      this.#runningScope = scope;
      this.#running = this.#run(trigger, scope).finally(() => {
        this.#running = null;
      });
    }
    return this.#running;
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#queuedFull?.catch(() => {});
    await this.#running?.catch(() => {});
  }

  async #run(trigger: string, requested: RefreshScope): Promise<RefreshRecord> {
    const { state, dataDir } = this.#options;
    const started = new Date();
    // Named by the process: a start removes only the work of processes that are gone (cleanRefreshLeftovers).
    const work = path.join(dataDir, 'ipdb', `refresh-${process.pid}-${started.getTime()}`);
    mkdirSync(work, { recursive: true });
    const current = currentDatabasePath(dataDir);
    // The validators say what was downloaded last, not what is installed: a
    // current.trie that is missing or damaged since is rebuilt whatever they
    // say (no conditional request, so an unchanged source answers 200).
    const damage = installedDamage(current);
    if (damage !== null) log('warn', 'ipdb_installed_invalid', { file: current, error: damage });
    const scope: RefreshScope = damage === null ? requested : 'all';
    const feeds = this.#options.feeds ?? [];
    let outcomes: SourceOutcome[] = [];
    let feedOutcomes: FeedOutcome[] = [];
    let installed: { source: string; version: string } | null = null;
    let error: string | null = null;
    log('info', 'ipdb_refresh_started', { trigger, scope, nodes: scope === 'all' ? this.#options.sources.map(sourceName) : [] });
    try {
      feedOutcomes = await this.#fetchFeeds(scope, work);
      const build = (base: Pick<BuildTask, 'files' | 'database' | 'compareWith'>, source: string, version: string) =>
        this.#build({
          ...base,
          feeds: feedFiles(feeds, state, dataDir),
          excludeAsns: [...(this.#options.excludeAsns ?? [])],
          out: path.join(work, 'candidate.trie'),
          cacheDir: path.dirname(current),
          sourceName: source,
          dataVersion: version,
        });
      if (scope === 'all') {
        const known = damage === null ? (state.get<Record<string, Validators>>(META_VALIDATORS) ?? {}) : {};
        ({ outcomes, installed } = await this.#refreshAsnData(work, started, known, build));
        // A failure of the ASN data, whatever the feeds do: the refold below
        // still installs a changed feed, but the record says failed.
        if (outcomes.every((o) => o.outcome === 'failed')) error = 'every source failed; the installed ASN data keeps serving';
      }
      // The ASN data stays as installed; a feed changed, or the configuration
      // asks for another set of feeds: fold the feeds in again.
      const refold = feedOutcomes.some((f) => f.outcome === 'updated') || foldsOtherFeeds(current, feedFiles(feeds, state, dataDir));
      const serving = installed === null && refold && installedDamage(current) === null ? servingData(current) : null;
      if (serving !== null) {
        await this.#install(work, await build({ database: current }, serving.source, serving.version));
        installed = serving;
      }
    } catch (err) {
      error = (err as Error).message;
      log('error', 'ipdb_refresh_failed', { error });
    } finally {
      rmSync(work, { recursive: true, force: true });
      // What the refresh's downloads and parsing here grew goes back to the system.
      binding.trimMemory();
    }
    // `error` set means the refresh failed even when the feeds' refold
    // installed a database: the ASN data it was asked for did not come (a
    // cron job's `ipdb refresh || alert` must fire). The refold shows in
    // `feeds`, each changed feed as updated.
    const failed = error !== null;
    const finished: RefreshRecord = {
      trigger,
      started_at: started.toISOString(),
      outcome: failed ? 'failed' : installed !== null ? 'updated' : 'unchanged',
      source: failed ? null : (installed?.source ?? outcomes.find((o) => o.outcome === 'unchanged')?.source ?? null),
      // Unchanged: the version of the ASN data that keeps serving.
      version: failed ? null : (installed?.version ?? servingData(current)?.version ?? null),
      nodes: outcomes,
      feeds: feedOutcomes,
      error,
      finished_at: new Date().toISOString(),
    };
    // The record of the last refresh is the ASN data's; feed-only runs keep
    // their outcomes in each feed's state.
    if (scope === 'all') await state.put(META_LAST, finished);
    log(finished.outcome === 'failed' ? 'error' : 'info', 'ipdb_refresh_finished', { scope, outcome: finished.outcome, source: finished.source, nodes: outcomes, feeds: feedOutcomes });
    return finished;
  }

  /** The feeds a refresh of `scope` fetches: all of them, the due ones, or none. */
  #fetchFeeds(scope: RefreshScope, work: string): Promise<FeedOutcome[]> {
    const { state, dataDir } = this.#options;
    const feeds = this.#options.feeds ?? [];
    const sources = this.#options.feedSources ?? ((f: FeedDefinition) => f.sources);
    const fetch = scope === 'all' ? feeds : scope === 'feeds' ? dueFeeds(feeds, state, Date.now(), sources) : [];
    return updateFeeds(fetch, { state, dataDir, work, limits: this.#options.limits ?? DEFAULT_LIMITS, sources, stop: this.#stop.signal });
  }

  /**
   * Tries the ASN data sources in order (inOrder) until one answers:
   * unchanged (304: null), or new data that builds, passes the checks and is
   * installed. `known` holds the validators of the last downloads and is
   * updated in place.
   */
  async #refreshAsnData(
    work: string,
    started: Date,
    known: Record<string, Validators>,
    build: (base: Pick<BuildTask, 'files' | 'compareWith'>, source: string, version: string) => Promise<BuildResult>,
  ): Promise<{ outcomes: SourceOutcome[]; installed: { source: string; version: string } | null }> {
    const outcomes: SourceOutcome[] = [];
    const failed = ({ source, error, ms }: SourceFailure) => {
      const message = (error as Error).message;
      outcomes.push({ source, outcome: 'failed', error: message, ms });
      log('warn', 'ipdb_source_failed', { source, error: message });
    };
    const answered = await inOrder(this.#options.sources, async (location, source) => {
      const fetched = await fetchSource(location, work, known, this.#options.limits ?? DEFAULT_LIMITS, this.#stop.signal);
      if (fetched.unchanged) return null;
      const version = location === 'package:' ? source.replace(/^package .*@/, '') : started.toISOString().slice(0, 16).replace('T', ' ');
      // The build process checks the candidate against the serving database (candidate.ts).
      const files = fetched.parts.map((p) => p.file!);
      const result = await build({ files, compareWith: currentDatabasePath(this.#options.dataDir) }, source, version).catch((err: unknown) => {
        // A refused source's downloads (and candidate) go before the next source is tried, not with the refresh.
        for (const file of [...files, path.join(work, 'candidate.trie')]) if (path.dirname(file) === work) rmSync(file, { force: true });
        throw err;
      });
      // Only the installed source's validators stay: another source's would
      // let its 304 pass for "unchanged" while this source's data serves.
      for (const url of Object.keys(known)) delete known[url];
      for (const p of fetched.parts) known[p.url] = p.validators;
      await this.#install(work, result, { [META_VALIDATORS]: known });
      return { source, version };
    }, failed, this.#stop.signal);
    if (answered === null) return { outcomes, installed: null };
    const { value: installed, source, ms } = answered;
    outcomes.push({ source, outcome: installed === null ? 'unchanged' : 'updated', error: null, ms });
    return { outcomes, installed };
  }

  /** Installs the candidate as current.trie and announces it; `state` is stored with the announcement. */
  async #install(work: string, result: BuildResult, state?: Record<string, unknown>): Promise<void> {
    const current = currentDatabasePath(this.#options.dataDir);
    mkdirSync(path.dirname(current), { recursive: true });
    moveDurably(path.join(work, 'candidate.trie'), current);
    await this.#options.state.databaseInstalled(current, state);
    await this.#options.onInstalled?.(result);
  }

  async #build(task: BuildTask): Promise<BuildResult> {
    // The candidate goes beside the downloads, which may have taken the file
    // system down to its reserve: the build may not write into it either.
    const serving = statSync(currentDatabasePath(this.#options.dataDir), { throwIfNoEntry: false })?.size ?? 0;
    const short = await spaceShort(path.dirname(task.out), candidateSizeLimit(serving));
    if (short) throw new AppError('ipdb_build_failed', short);
    const result = await runBuild(task, this.#options.buildMemoryMb, this.#stop.signal);
    for (const { name, error } of result.report.feedErrors) log('warn', 'feed_unreadable', { feed: name, error });
    if (!result.idleScheduling) log('warn', 'ipdb_build_not_idle', { reason: 'the system refused SCHED_IDLE for the build process; the build competed with serving at normal priority' });
    return result;
  }
}

/**
 * Runs one build in a process of its own (build.worker.ts) with a heap of
 * `heapMb`. A process, not a thread of the server: in a worker thread a
 * large build's full collections held a lock V8 shares across the process
 * (cppgc, cross-thread persistents), and the serving threads waited on it
 * 16-60 s (the hostile-publisher review of 2026-11-29); and a build that
 * outgrows its heap ends its own process, where it took the server's down
 * (finding 103). It starts once per build (0.07 s to a loaded process). Aborting
 * `signal` (a stop) kills it, and the refresh ends as stopped; a build asked
 * for after the stop never starts.
 */
function runBuild(task: BuildTask, heapMb: number, signal: AbortSignal): Promise<BuildResult> {
  if (signal.aborted) return Promise.reject(new AppError('stopped'));
  return new Promise((resolve, reject) => {
    const child = fork(WORKER_FILE, [String(process.pid)], {
      serialization: 'advanced',
      execArgv: [`--max-old-space-size=${heapMb}`],
      // Its log goes where this process's does; its stderr is kept for the reason it died.
      stdio: ['ignore', logFd(), 'pipe', 'ipc'],
    });
    let answer: BuildAnswer | undefined;
    let stderr = '';
    let settled = false;
    const kill = () => child.kill('SIGKILL');
    signal.addEventListener('abort', kill, { once: true });
    /** The one outcome: a process that could not start emits 'error' (and its IPC channel more) but no 'exit'. */
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', kill);
      outcome();
    };
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-4096)));
    child.once('message', (m: BuildAnswer) => (answer = m));
    child.on('error', (err) => settle(() => reject(new AppError('ipdb_build_failed', `the build process could not start: ${err.message}`))));
    child.once('exit', (code, sig) =>
      settle(() => {
        if (signal.aborted) return reject(new AppError('stopped'));
        if (answer && 'result' in answer) return resolve(answer.result);
        if (answer) return reject(Object.assign(new Error(answer.error.message), { code: answer.error.code }));
        const why = /heap limit|out of memory/i.test(stderr)
          ? `it ran out of its ${heapMb} MB heap (SPLITGUARD_BUILD_MEMORY_MB)`
          : `it ended with ${sig ?? `exit code ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`;
        reject(new AppError('ipdb_build_failed', why));
      }),
    );
    // A send to a process that never started fails here, not as an unheard 'error'.
    child.send(task, (err) => {
      if (err) settle(() => reject(new AppError('ipdb_build_failed', `the build process could not be given its task: ${err.message}`)));
    });
  });
}

/**
 * Whether a database file folds in another set of feeds than `files` would
 * make: the range feeds by name, and whether the hosting list (compiled from
 * the ASN list feeds) is in. A file that cannot be read is not judged here.
 */
export function foldsOtherFeeds(file: string, files: readonly FeedFile[]): boolean {
  let db: IpDatabase;
  try {
    db = IpDatabase.open(file);
  } catch {
    return false;
  }
  try {
    const names = (xs: string[]) => [...new Set(xs)].sort().join(',');
    const have = names(db.info.feeds.map((f) => (f.kind === 'asns' ? 'hosting list' : f.name)));
    const want = names(files.map((f) => (f.list !== undefined ? 'hosting list' : f.name)));
    return have !== want;
  } finally {
    db.close();
  }
}

/** The source and version of the ASN data in the installed database, or null when it cannot be opened. */
function servingData(file: string): { source: string; version: string } | null {
  try {
    const db = IpDatabase.open(file);
    const { source, version } = db.info;
    db.close();
    return { source, version };
  } catch {
    return null;
  }
}

/** Why the installed database cannot serve (its ipdb_* code, or ipdb_missing), or null when it opens and validates. */
function installedDamage(file: string): string | null {
  if (!existsSync(file)) return 'ipdb_missing';
  try {
    IpDatabase.open(file).close();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? 'ipdb_open_failed';
  }
}

/** A refresh's work directory: refresh-<pid>-<ms> (refresh-<ms> before the pid was in it). */
const WORK_DIR = /^refresh-(?:([0-9]+)-)?[0-9]+$/;

/**
 * Removes the work directories of refreshes whose process is gone (a crash
 * left them). For a start, before it refreshes: its own pid's are left over
 * too (a container's server is pid 1 every time); a running process's (an
 * `ipdb refresh` of the CLI on the same data directory) are kept: removing
 * one failed that refresh and blamed its source.
 */
export function cleanRefreshLeftovers(dataDir: string): void {
  const dir = path.join(dataDir, 'ipdb');
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = WORK_DIR.exec(name);
    if (!m) continue;
    const pid = m[1] === undefined ? null : Number(m[1]);
    if (pid === null || pid === process.pid || !processAlive(pid)) rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/**
 * The next due time after `now`: the interval plus up to 10% (at most an
 * hour) of random jitter, so that many installations do not all fetch at once.
 */
export function nextDue(now: number, hours: number): number {
  const interval = hours * 3_600_000;
  return now + interval + Math.floor(Math.random() * jitterOf(interval));
}

const jitterOf = (interval: number) => Math.min(interval * 0.1, 3_600_000);

/** The stored due time of the daily refresh as the schedule reads it (dueAfterClockStep); null when none is stored. */
export function scheduledRefresh(state: StateStore, now: number, hours: number): number | null {
  const due = nextRefreshAt(state);
  const interval = hours * 3_600_000;
  return due === null ? null : dueAfterClockStep(due, now, interval + jitterOf(interval));
}

export function storeNextDue(state: StateStore, at: number): Promise<void> {
  return state.put(META_NEXT, at);
}
