// splitguard serve: runs the server until SIGTERM or SIGINT, then drains it.
import type { Config } from '../config.js';
import { log } from '../log.js';
import { serve } from '../main.js';
import type { Io } from './io.js';
import { parseCommand } from './io.js';

export async function serveCommand(io: Io, args: string[], config: Config): Promise<number> {
  parseCommand('serve', args, {}, false);
  const server = await serve(config, { announce: (text) => io.err(text) });
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      log('info', 'signal', { signal });
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      void server.stop().then(resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  return 0;
}
