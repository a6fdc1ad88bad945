// What a failed LMDB commit leaves behind that nobody awaits.
import { log } from '../log.js';

/**
 * When a commit fails (a read-only or full file system), lmdb-js rejects the
 * promises of the writes in it, which their callers handle, but also promises
 * of its own that nobody holds: the batch's internal commit promise (its
 * reason carries `commitError`) and `commitError` itself, which holds the
 * cause (write.js rejectCommit; its promise has its own `reject` method).
 * Unhandled, they would end the thread and with it the process, so a storage
 * fault would stop the redirects too. This handler logs the cause once per
 * failed commit instead, and leaves every other unhandled rejection to end
 * the process as before. Installed by each entry point (cli/main.ts,
 * server.worker.ts): it is a process-wide policy, not the store's to set.
 */
let installed = false;
export function handleStorageCommitErrors(): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason, promise) => {
    if (reason instanceof Error) {
      if (typeof (promise as { reject?: unknown }).reject === 'function') {
        log('error', 'storage_write_failed', { error: reason });
        return;
      }
      if ('commitError' in reason) return;
    }
    // Not a failed commit: keep Node's default (an uncaught exception)
    // unless someone else (a test runner) listens too.
    if (process.listenerCount('unhandledRejection') === 1) throw reason;
  });
}

