// What a CLI command gets from the outside world, so that tests can run
// commands in-process and the entry point stays thin.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AppError } from '../errors.js';
import { type ClusterSettings, openStorage, type Storage } from '../store/storage.js';

export interface Io {
  dataDir: string;
  stdin: NodeJS.ReadableStream;
  out(line: string): void;
  err(line: string): void;
  /** True when stderr is a terminal: progress is shown only there. */
  interactive: boolean;
  /** Cluster mode: writes go to PostgreSQL (and then into the local replica). */
  cluster?: ClusterSettings | null;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Runs `fn` with the data directory's storage open, and closes it after. */
export async function withStorage<T>(io: Io, fn: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage(io.dataDir, { cluster: io.cluster });
  try {
    return await fn(storage);
  } finally {
    await storage.close();
  }
}

/**
 * util.parseArgs with strict checking; its errors become usage errors naming
 * the command. An option given twice is one too (parseArgs keeps the last
 * value silently: `key reset --account 1 --account 2` revoked account 2's keys).
 */
export function parseCommand(command: string, args: string[], options: Options, allowPositionals: boolean) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals, strict: true, tokens: true });
  } catch (err) {
    const message = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new AppError('cli_usage', `${command}: ${message}`, null, { cause: err });
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && !options[token.name]?.multiple) throw new AppError('cli_usage', `${command}: option '--${token.name}' is given more than once`);
    seen.add(token.name);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/** A progress callback that redraws one stderr line on a terminal, and does nothing elsewhere. */
export function progressPrinter(io: Io, label: string): ((phase: string, fraction: number) => void) | undefined {
  if (!io.interactive) return undefined;
  let last = '';
  return (phase, fraction) => {
    const text = `${label}: ${phase} ${Math.round(fraction * 100)}%`;
    if (text === last) return;
    last = text;
    process.stderr.write(`\r${text}\x1b[K${phase === 'build' && fraction >= 1 ? '\n' : ''}`);
  };
}
