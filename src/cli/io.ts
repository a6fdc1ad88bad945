// What a CLI command gets from the outside world, so that tests can run
// commands in-process and the entry point stays thin.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AppError } from '../errors.js';
import { hasStore, storeDir } from '../store/db.js';
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

/**
 * Runs `fn` with the data directory's storage open, and closes it after. A
 * single node's data directory without a store gets a new one, and the
 * command says so on stderr: made before the server's first start that is
 * what was meant, but a mistyped SPLITGUARD_DATA_DIR (or the wrong working
 * directory) would otherwise make accounts and keys no server reads, without
 * a word.
 */
export async function withStorage<T>(io: Io, fn: (storage: Storage) => Promise<T>): Promise<T> {
  const fresh = io.cluster === null && !hasStore(io.dataDir);
  const storage = await openStorage(io.dataDir, { cluster: io.cluster });
  if (fresh) io.err(`splitguard: note: there was no store in ${storeDir(io.dataDir)}, so a new one was made; if a server runs elsewhere, set SPLITGUARD_DATA_DIR to its data directory`);
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
    const message = (err as Error).message
      .replace(/\. To specify a positional argument.*$/s, '')
      // "--quota -5": Node's three sentences about an ambiguous argument, as one.
      .replace(/^Option '(--[^']+)' argument is ambiguous\..*$/s, "option '$1' needs a value; a value that begins with '-' is written $1=-…");
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
