// The memory every server thread shares with the others and with the main
// thread: limiter tables, metrics regions, signal slots and the console's
// files. Allocated once by serve(), passed to each thread in WorkerInput.
import type { Config } from '../config.js';
import { PasswordWork } from '../console/password-work.js';
import { loadConsoleFiles } from '../console/static.js';
import { FailureLimiter } from '../http/failure-limiter.js';
import { SharedRateLimiter } from '../http/rate-limit.js';
import { Metrics } from '../metrics.js';
import { ClusterStatus } from '../store/pg/cluster-status.js';
import type { WorkerInput } from '../server.worker.js';

/** The memory every server thread shares with the main thread (WorkerInput.shared). */
export type SharedMemory = WorkerInput['shared'];

export function allocateSharedMemory(config: Config): SharedMemory {
  return {
    accounts: SharedRateLimiter.allocate(1 << 16),
    // Failure tables hold 8 keys a set: 32,768 client addresses for the API,
    // 8,192 each for console sign-ins by address and by email at an address.
    authFailures: FailureLimiter.allocate(1 << 12),
    loginAddresses: FailureLimiter.allocate(1 << 10),
    loginEmailAtAddress: FailureLimiter.allocate(1 << 10),
    loginEmails: FailureLimiter.allocate(1 << 8),
    // Successful sign-ins per email: only a user with the password adds one.
    signIns: FailureLimiter.allocate(1 << 8),
    passwordWork: PasswordWork.allocate(),
    // One region per server thread plus one for the main thread.
    metrics: Metrics.allocate(config.threads + 1),
    feed: new SharedArrayBuffer(4),
    refresh: new SharedArrayBuffer(8),
    cluster: ClusterStatus.allocate(),
    console: loadConsoleFiles(),
  };
}
