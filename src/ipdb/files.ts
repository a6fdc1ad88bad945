// Building a trie file from source files on disk and installing it safely.
import { writeFileDurably } from '../durable-file.js';
import path from 'node:path';
import { AppError } from '../errors.js';
import { readRegularFile } from '../regular-file.js';
import { buildDatabase, type BuildReport, type FeedInput } from './build.js';
import { ASN_FORMATS, type FeedFormat, parseFeed } from './feeds/parse.js';
import { compileHostingList, type HostingListInput } from '../quality/hosting-list.js';
import { carrierAsns, hostingListRules } from '../quality/lists.js';
import type { FeedFile } from './feeds/state.js';
import { IpDatabase } from './database.js';
import { parseSources, type ParsedSources } from './sources.js';

export interface BuildFromFilesOptions {
  sourceName?: string;
  dataVersion?: string;
  onProgress?: (phase: string, fraction: number) => void;
  /** Feeds to fold in (feeds/state.ts feedFiles), in priority order. */
  feeds?: FeedFile[];
  /** ASNs no ASN feed may list (carriers; see quality/lists.ts excludedFromAsnFeeds). */
  excludeAsns?: readonly number[];
}

export interface FileBuildReport extends BuildReport {
  lines: number;
  malformed: number;
  unrouted: number;
  malformedExamples: ParsedSources['malformedExamples'];
  /** Feeds, or their memories, that could not be read, with why and what was folded in instead. */
  feedErrors: { name: string; error: string }[];
}

/**
 * Reads the feeds' files into build input. A download that cannot be read or
 * parsed (damaged or replaced since it was saved) gives way to the feed's
 * snapshot; a feed with nothing readable is left out. A memory that cannot
 * be read costs only the addresses it remembered, as recent.ts reads it.
 * Each is reported (the refresh logs it): the ASN data and the other feeds
 * still build.
 */
function feedInputs(feeds: readonly FeedFile[]): { inputs: FeedInput[]; errors: { name: string; error: string }[] } {
  const inputs: FeedInput[] = [];
  const errors: { name: string; error: string }[] = [];
  for (const f of feeds) {
    const memoryError = (error: string) => errors.push({ name: f.name, error: `its memory: ${error}; folded in without it` });
    try {
      inputs.push(feedInput(f, memoryError));
    } catch (err) {
      const error = (err as Error).message;
      if (!f.fallback) {
        errors.push({ name: f.name, error: `${error}; the feed is left out` });
        continue;
      }
      try {
        inputs.push(feedInput(f.fallback, memoryError));
        errors.push({ name: f.name, error: `${error}; its ${f.fallback.version} is folded in instead` });
      } catch (again) {
        errors.push({ name: f.name, error: `${error}; its snapshot too: ${(again as Error).message}` });
      }
    }
  }
  return { inputs, errors };
}

function feedInput(f: FeedFile, memoryError: (error: string) => void): FeedInput {
  const ranges = { v4: [] as [bigint, bigint][], v6: [] as [bigint, bigint][] };
  const remembered = { v4: [] as [bigint, bigint][], v6: [] as [bigint, bigint][] };
  const asns: number[] = [];
  const read = (file: string, format: FeedFormat, into: typeof ranges) => {
    const parsed = parseFeed(format, readRegularFile(file), `${f.name} (${path.basename(file)})`);
    // One by one: spread into push()'s arguments, a list of some 100,000
    // entries or more overflows the stack (a feed may hold FEED_MAX_ENTRIES).
    for (const r of parsed.ranges?.v4 ?? []) into.v4.push(r);
    for (const r of parsed.ranges?.v6 ?? []) into.v6.push(r);
    for (const a of parsed.asns ?? []) asns.push(a);
  };
  for (const file of f.files) read(file, f.format, ranges);
  if (f.recent !== undefined) {
    try {
      read(f.recent, 'cidr-lines', remembered);
    } catch (err) {
      memoryError((err as Error).message);
    }
  }
  const kind = ASN_FORMATS.includes(f.format) ? { asns } : f.recent !== undefined ? { ranges, remembered } : { ranges };
  return { name: f.name, label: f.label, version: f.version, fetchedAt: f.fetchedAt, ...kind };
}

/**
 * The most frequent organization of every ASN in the ASN data.
 * @public scripts/compile-hosting-asns.js (through dist/)
 */
export function organizations(parsed: ParsedSources): Map<number, string> {
  const counts = new Map<number, Map<string, number>>();
  for (const row of [...parsed.v4, ...parsed.v6]) {
    let m = counts.get(row.asn);
    if (!m) counts.set(row.asn, (m = new Map()));
    m.set(row.org, (m.get(row.org) ?? 0) + 1);
  }
  const names = new Map<number, string>();
  for (const [asn, m] of counts) names.set(asn, [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0]);
  return names;
}

/**
 * The hosting/VPN ASN list compiled from its upstream lists' files under the
 * list's rules (quality/hosting-list.ts), as two ASN feeds.
 */
function hostingListInputs(lists: readonly FeedFile[], names: ReadonlyMap<number, string>): FeedInput[] {
  const byList: HostingListInput['lists'] = {};
  for (const f of lists) {
    const names = new Map<number, string>();
    for (const file of f.files) {
      for (const [asn, name] of parseFeed(f.format, readRegularFile(file), `${f.name} (${path.basename(file)})`).asnNames ?? []) if (!names.has(asn)) names.set(asn, name);
    }
    byList[f.list!] = names;
  }
  const { rows } = compileHostingList({ ...hostingListRules(), lists: byList, names });
  const version = lists.map((f) => `${f.list} ${f.version}`).join(', ');
  const fetchedAt = Math.max(...lists.map((f) => f.fetchedAt));
  return (['hosting', 'vpn'] as const).map((category) => ({
    name: `${category}-list`,
    label: category,
    version,
    fetchedAt,
    asns: rows.filter((r) => r.category === category).map((r) => r.asn),
  }));
}

function compile(parsed: ParsedSources, options: BuildFromFilesOptions & { sourceName: string; dataVersion: string }): { bytes: Uint8Array; report: FileBuildReport } {
  const feeds = options.feeds ?? [];
  const { inputs, errors } = feedInputs(feeds.filter((f) => f.list === undefined));
  const lists = feeds.filter((f) => f.list !== undefined);
  const names = organizations(parsed);
  if (lists.length > 0) {
    try {
      inputs.push(...hostingListInputs(lists, names));
    } catch (err) {
      errors.push({ name: 'hosting-list', error: (err as Error).message });
    }
  }
  const { bytes, report } = buildDatabase(parsed, {
    sourceName: options.sourceName,
    dataVersion: options.dataVersion,
    onProgress: (f) => options.onProgress?.('build', f),
    feeds: inputs,
    excludeAsns: options.excludeAsns,
    carrierAsns: carrierAsns(names),
  });
  return {
    bytes,
    report: { ...report, lines: parsed.lines, malformed: parsed.malformed, unrouted: parsed.unrouted, malformedExamples: parsed.malformedExamples, feedErrors: errors },
  };
}

/**
 * Compiles the ASN data of an existing database file again, with `feeds`:
 * its ranges and records, its source and version (the feeds changed, the
 * ASN data did not).
 */
export function rebuildWithFeeds(database: string, options: BuildFromFilesOptions = {}): { bytes: Uint8Array; report: FileBuildReport } {
  const db = IpDatabase.open(database);
  try {
    const parsed: ParsedSources = { v4: [], v6: [], lines: 0, unrouted: 0, malformed: 0, malformedExamples: [] };
    let order = 0;
    for (const family of [4, 6] as const) {
      for (const { start, end, record } of db.ranges(family)) {
        const asn = db.asn(record);
        if (asn !== 0) (family === 4 ? parsed.v4 : parsed.v6).push({ start, end, asn, org: db.organization(record), order: order++ });
      }
    }
    parsed.lines = order;
    return compile(parsed, { ...options, sourceName: db.info.source, dataVersion: db.info.version });
  } finally {
    db.close();
  }
}

/** Parses and compiles source files (CSV/TSV, plain or gzip) into trie bytes. */
export function buildFromFiles(files: string[], options: BuildFromFilesOptions = {}): { bytes: Uint8Array; report: FileBuildReport } {
  const inputs = files.map((file) => {
    try {
      return { name: path.basename(file), data: readRegularFile(file) };
    } catch (err) {
      const why = err instanceof AppError && err.code === 'not_a_regular_file' ? 'not a regular file' : (err as NodeJS.ErrnoException).code;
      throw new AppError('ipdb_source_unreadable', `${file} (${why})`, null, { cause: err });
    }
  });
  const parsed = parseSources(inputs, (f) => options.onProgress?.('parse', f));
  return compile(parsed, {
    ...options,
    sourceName: options.sourceName ?? inputs.map((i) => i.name).join(', '),
    dataVersion: options.dataVersion ?? new Date().toISOString().slice(0, 10).replaceAll('-', ''),
  });
}

/**
 * Writes trie bytes to `file` without ever exposing a partial file: a
 * temporary sibling is written, fsynced, fully validated by the native
 * reader, then renamed over the target and the directory fsynced.
 */
export function installDatabaseFile(bytes: Uint8Array, file: string): void {
  try {
    writeFileDurably(file, bytes, 0o644, (tmp) => IpDatabase.open(tmp).close());
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new AppError('ipdb_write_failed', `${file} (${code ?? (err as Error).message})`, null, { cause: err });
  }
}
