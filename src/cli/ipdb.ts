// splitguard ipdb build | lookup | info | refresh | reset-feed
import { createInterface } from 'node:readline';
import path from 'node:path';
import { AppError } from '../errors.js';
import { ensureCurrentDatabase } from '../ipdb/current.js';
import { IpDatabase } from '../ipdb/database.js';
import type { Config } from '../config.js';
import { buildFromFiles, installDatabaseFile } from '../ipdb/files.js';
import { FEEDS } from '../ipdb/feeds/registry.js';
import { resetFeed } from '../ipdb/feeds/state.js';
import { Refresher } from '../ipdb/refresh.js';
import { activeBlacklist } from '../quality/blacklist-store.js';
import { Classifier } from '../quality/classifier.js';
import { builtInLists, LEVELS, parseLevel } from '../quality/lists.js';
import { hasStore } from '../store/db.js';
import { type Io, parseCommand, progressPrinter, withStorage } from './io.js';

export const ipdbUsage = `Usage:
  splitguard ipdb build --out FILE SOURCE...     compile CSV/TSV sources (plain or gzip) into a trie file
  splitguard ipdb lookup [--db FILE] [--level L] IP...    one JSON line per address (the API's check result)
  splitguard ipdb lookup [--db FILE] [--level L] --stdin  addresses from standard input, one per line
  splitguard ipdb info [FILE]                    version, build time, source, counts, size
  splitguard ipdb refresh                        fetch the sources now and install a new database
                                                 (a running server swaps to it within a second)
  splitguard ipdb reset-feed NAME                drop a feed's kept data; its next download is taken whole`;

function openDatabase(io: Io, file: string | undefined): IpDatabase {
  if (file === '') throw new AppError('cli_usage', 'ipdb: an empty database path (leave it out for the data directory\'s database)');
  if (file !== undefined) return IpDatabase.open(path.resolve(file));
  const { file: current } = ensureCurrentDatabase(io.dataDir, progressPrinter(io, 'building the IP database'));
  return IpDatabase.open(current);
}

async function build(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('ipdb build', args, { out: { type: 'string' } }, true);
  if (!values.out) throw new AppError('cli_usage', 'ipdb build: --out FILE is required');
  if (positionals.length === 0) throw new AppError('cli_usage', 'ipdb build: at least one SOURCE file is required');
  const started = performance.now();
  const { bytes, report } = buildFromFiles(positionals, { onProgress: progressPrinter(io, 'building') });
  const out = path.resolve(values.out as string);
  installDatabaseFile(bytes, out);
  io.out(JSON.stringify({ out, ...report, ms: Math.round(performance.now() - started) }));
  return 0;
}

async function lookup(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    'ipdb lookup',
    args,
    { db: { type: 'string' }, stdin: { type: 'boolean' }, level: { type: 'string' } },
    true,
  );
  const level = values.level === undefined ? 'medium' : parseLevel(values.level);
  if (!level) throw new AppError('cli_usage', `ipdb lookup: --level must be one of ${LEVELS.join(', ')}, got "${values.level}"`);
  if (values.stdin && positionals.length > 0) throw new AppError('cli_usage', 'ipdb lookup: give addresses or --stdin, not both');
  if (!values.stdin && positionals.length === 0) throw new AppError('cli_usage', 'ipdb lookup: at least one IP address (or --stdin) is required');
  const db = openDatabase(io, values.db as string | undefined);
  // The data directory's effective blacklist when it has a store, else the
  // built-in one; either way with the ASNs the database's feeds list.
  const classifier = hasStore(io.dataDir)
    ? await withStorage(io, async (storage) => new Classifier(db, builtInLists(), (listed) => activeBlacklist(storage.blacklist, listed)))
    : new Classifier(db, builtInLists(), (listed) => activeBlacklist(null, listed));
  let failures = 0;
  const one = (text: string) => {
    const result = text.length <= 64 ? classifier.check(text, level) : null;
    if (result) {
      io.out(JSON.stringify(result));
    } else {
      failures++;
      const err = new AppError('invalid_parameter', `ip is not a valid IPv4 or IPv6 address: "${text}"`, 'ip');
      io.out(JSON.stringify({ ip: text, ...err.body() }));
    }
  };
  if (values.stdin) {
    const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      const text = line.trim();
      if (text) one(text);
    }
  } else {
    for (const text of positionals) one(text);
  }
  if (failures > 0) io.err(`splitguard: ipdb lookup: ${failures} invalid address${failures === 1 ? '' : 'es'}`);
  return failures > 0 ? 1 : 0;
}

async function info(io: Io, args: string[]): Promise<number> {
  const { positionals } = parseCommand('ipdb info', args, {}, true);
  if (positionals.length > 1) throw new AppError('cli_usage', 'ipdb info takes at most one FILE');
  const db = openDatabase(io, positionals[0]);
  io.out(JSON.stringify(db.info, null, 2));
  db.close();
  return 0;
}

async function refresh(io: Io, args: string[], config: Config): Promise<number> {
  parseCommand('ipdb refresh', args, {}, false);
  ensureCurrentDatabase(io.dataDir, progressPrinter(io, 'building the IP database'), config.feeds);
  return withStorage(io, async (storage) => {
    const refresher = Refresher.forConfig(config, storage.state);
    try {
      const record = await refresher.start('cli');
      io.out(JSON.stringify(record, null, 2));
      if (record.outcome !== 'failed') return 0;
      // The record is on stdout; the reason, one line per source, on stderr.
      io.err(`splitguard: ipdb refresh failed: ${record.error ?? 'unknown error'}`);
      for (const tried of record.nodes) if (tried.error) io.err(`  ${tried.source}: ${tried.error}`);
      // The ASN data failed, but changed feeds are folded into the ASN data installed before.
      const updated = record.feeds.filter((f) => f.outcome === 'updated').map((f) => f.feed);
      if (updated.length > 0) io.err(`  feeds updated all the same: ${updated.join(', ')}`);
      return 1;
    } finally {
      await refresher.close();
    }
  });
}

/**
 * Drops a feed's last good download and recent file and marks it reset
 * (feeds/state.ts): for a publisher's honest list that the shrink or growth
 * rule refuses after a bad one was taken. A running server fetches the feed
 * within a minute (it is due at once) and folds it in.
 */
async function resetFeedCommand(io: Io, args: string[]): Promise<number> {
  const { positionals } = parseCommand('ipdb reset-feed', args, {}, true);
  if (positionals.length !== 1) throw new AppError('cli_usage', 'ipdb reset-feed: one feed NAME is required');
  const name = positionals[0]!;
  if (!FEEDS.some((f) => f.name === name)) throw new AppError('cli_usage', `ipdb reset-feed: unknown feed "${name}" (known: ${FEEDS.map((f) => f.name).join(', ')})`);
  return withStorage(io, async (storage) => {
    const dropped = await resetFeed(storage.state, io.dataDir, name, new Date());
    io.out(JSON.stringify({ feed: name, dropped }));
    return 0;
  });
}

export async function ipdbCommand(io: Io, args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'build':
      return build(io, rest);
    case 'lookup':
      return lookup(io, rest);
    case 'info':
      return info(io, rest);
    case 'refresh':
      return refresh(io, rest, config);
    case 'reset-feed':
      return resetFeedCommand(io, rest);
    default:
      throw new AppError('cli_usage', sub ? `unknown ipdb command "${sub}"\n${ipdbUsage}` : ipdbUsage);
  }
}

