// splitguard serve: runs the server until SIGTERM, SIGINT or SIGHUP, then drains it.
import type { Config } from '../config.js';
import { log } from '../log.js';
import type { RunningServer } from '../main.js';
import { raiseFileLimit } from '../serve/file-limit.js';
import { ServerThreads } from '../serve/threads.js';
import type { Io } from './io.js';
import { parseCommand } from './io.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export async function serveCommand(io: Io, args: string[], config: Config): Promise<number> {
  parseCommand('serve', args, {}, false);
  // The handlers are in place before the server starts: a signal that comes
  // as soon as "listening" is logged (a supervisor, a test) must drain the
  // server, not end the process by the signal's default action. A signal
  // during the start stops the server once it is up; a second signal ends
  // the process at once (the handlers are removed after the first).
  // SIGHUP is a stop too: a server started from a terminal or an ssh session
  // gets it when the session closes, and supervisors and log rotation send
  // it; its default action would end the process without the drain, losing
  // the clicks counted since the last flush.
  let server: RunningServer | null = null;
  let threads: ServerThreads | null = null;
  let signalled = false;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const onSignal = (signal: string) => {
    log('info', 'signal', { signal });
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
    signalled = true;
    if (server) void server.stop().then(stopped);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  try {
    // Before anything else opens descriptors: the open-file limit raised, or
    // the start refused with what to do (too few descriptors would fail it
    // somewhere worse: serve/file-limit.ts).
    const fileLimit = raiseFileLimit(config.threads);
    // The threads first: each loads its modules while this thread loads the
    // server's own (main.ts and all it imports) and opens the store.
    threads = new ServerThreads().spawn(config.threads);
    const { serve } = await import('../main.js');
    server = await serve(config, { announce: (text) => io.err(text), threads, fileLimit });
  } catch (err) {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
    // Threads a failed start never started are still loading: stopped here, not left to the process's end (ServerThreads.stop).
    await threads?.stop();
    throw err;
  }
  if (signalled) void server.stop().then(stopped);
  await done;
  return 0;
}
