// The server threads: SPLITGUARD_THREADS workers (server.worker.ts) that each
// run a uWS app on the shared port. This module owns the Worker objects and
// their messages; what the threads are told to do comes from serve().
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { log } from '../log.js';
import type { KeywordTables } from '../quality/classifier.js';
import type { MainMessage, WorkerInput, WorkerMessage } from '../server.worker.js';

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'server.worker.js');

/**
 * The young generation of each server thread's heap. V8's default lets it
 * grow to several MB during start-up, resident in every thread; a redirect
 * allocates a few hundred bytes, so a small one only means more scavenges of
 * almost nothing (measured: docs/performance.md, young generation row).
 */
const SERVER_THREAD_YOUNG_GENERATION_MB = 3;
/** How long a thread may take to drain at shutdown before it is terminated. */
const DRAIN_MS = 15_000;

export type SwapAnswer = Extract<WorkerMessage, { type: 'swapped' }>;

export interface ThreadEvents {
  /** A thread asks for a database refresh (POST /v1/ip/database/refresh). */
  onRefreshRequest(accountId: number): void;
  /** A thread ended on its own with an error code: the process must stop. */
  onCrash(thread: number, code: number): void;
}

export class ServerThreads {
  readonly ports: number[] = [];
  readonly #workers: Worker[] = [];
  readonly #exited = new Set<Worker>();
  readonly #closedCleanly = new Set<number>();
  readonly #swapWaiters = new Map<number, (m: SwapAnswer) => void>();
  #stopping = false;
  /** A thread that failed before start(): its error. */
  #earlyError: Error | null = null;
  /** Threads told to start (the others wait for their input and are terminated at stop()). */
  readonly #started = new Set<Worker>();
  /** Per spawned thread: settled once its modules are loaded (its 'loaded' message) or it has exited. */
  readonly #loaded: Promise<void>[] = [];
  /** The one stop: a failed start may reach it twice (its shutdown, then serve's own). */
  #stopped: Promise<number> | null = null;

  /**
   * Creates `count` threads before their input is ready: each loads its
   * modules (a third of a thread's start-up) while the main thread opens the
   * store and the database, then waits for start(). Until then they do not
   * keep the process alive; a start that fails before start() must still
   * stop() them (see #terminateLoaded).
   */
  spawn(count: number): this {
    for (let thread = 0; thread < count; thread++) {
      const w = new Worker(WORKER_FILE, { resourceLimits: { maxYoungGenerationSizeMb: SERVER_THREAD_YOUNG_GENERATION_MB } });
      w.unref();
      w.once('error', (err) => (this.#earlyError ??= err));
      this.#loaded.push(
        new Promise<void>((resolve) => {
          const loaded = (m: WorkerMessage) => {
            if (m.type !== 'loaded') return;
            w.off('message', loaded);
            resolve();
          };
          w.on('message', loaded);
          w.once('exit', () => resolve());
        }),
      );
      this.#workers.push(w);
    }
    return this;
  }

  /** Starts the spawned threads, one per input; resolves when all listen, rejects when one cannot. */
  start(inputs: WorkerInput[], events: ThreadEvents): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#earlyError !== null) return reject(this.#earlyError);
      if (inputs.length !== this.#workers.length) return reject(new Error(`${this.#workers.length} threads spawned for ${inputs.length} inputs`));
      let ready = 0;
      for (const input of inputs) {
        const { thread } = input;
        const w = this.#workers[thread];
        w.ref();
        this.#started.add(w);
        w.postMessage({ type: 'start', input } satisfies MainMessage);
        w.on('message', (m: WorkerMessage) => {
          switch (m.type) {
            case 'listening':
              this.ports[m.thread] = m.port;
              if (++ready === inputs.length) resolve();
              break;
            case 'failed':
              // uWebSockets.js gives no reason (m.error names the address too).
              reject(new AppError('listen_failed', `${input.config.host}:${input.config.port} (server thread ${m.thread})`));
              break;
            case 'closed':
              this.#closedCleanly.add(m.thread);
              break;
            case 'swapped':
              this.#swapWaiters.get(m.thread)?.(m);
              this.#swapWaiters.delete(m.thread);
              break;
            case 'refresh':
              events.onRefreshRequest(m.accountId);
              break;
          }
        });
        w.on('error', (err) => {
          log('error', 'thread_failed', { thread, error: err });
          if (!this.#stopping) reject(err);
        });
        w.on('exit', (code) => {
          this.#exited.add(w);
          // A swap waiting on this thread would wait forever.
          this.#swapWaiters.get(thread)?.({ type: 'swapped', thread, file: '', error: 'thread exited' });
          if (!this.#stopping && code !== 0) events.onCrash(thread, code);
        });
      }
    });
  }

  /** Asks every thread to map `file`; resolves with each thread's answer. */
  swap(file: string, tables: KeywordTables): Promise<SwapAnswer[]> {
    return Promise.all(
      this.#workers.map(
        (w, thread) =>
          new Promise<SwapAnswer>((resolve) => {
            if (this.#exited.has(w)) return resolve({ type: 'swapped', thread, file: '', error: 'thread exited' });
            this.#swapWaiters.set(thread, resolve);
            w.postMessage({ type: 'swap', file, tables } satisfies MainMessage);
          }),
      ),
    );
  }

  /** Drains every thread (terminated after DRAIN_MS); resolves with how many closed cleanly. */
  stop(): Promise<number> {
    return (this.#stopped ??= this.#stop());
  }

  async #stop(): Promise<number> {
    this.#stopping = true;
    await Promise.all(
      this.#workers.map((w, thread) => {
        // A thread that has already exited would never send 'exit' again.
        if (this.#exited.has(w)) return undefined;
        if (!this.#started.has(w)) return this.#terminateLoaded(w, thread);
        return new Promise<void>((resolve) => {
          const kill = setTimeout(() => void w.terminate().then(() => resolve()), DRAIN_MS);
          w.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          w.postMessage({ type: 'shutdown' } satisfies MainMessage);
        });
      }),
    );
    return this.#closedCleanly.size;
  }

  /**
   * A thread never started is terminated once its modules have loaded: a
   * termination that lands while Node registers a native addon (lmdb-js's
   * napi_register_module_v1) aborts the whole process, "FATAL ERROR:
   * Error::ThrowAsJavaScriptException napi_throw" and SIGABRT in place of the
   * failed start's exit 1. So does the process's own end, which terminates
   * what is left: hence referenced while it loads, so the end waits too.
   */
  async #terminateLoaded(w: Worker, thread: number): Promise<void> {
    w.ref();
    await this.#loaded[thread];
    await w.terminate();
  }
}
