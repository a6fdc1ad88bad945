// splitguard cluster import | status: moving a single node into a cluster,
// and what the cluster's nodes last reported (docs/cluster.md). Both need
// SPLITGUARD_DATABASE_URL.
import path from 'node:path';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { hasStore, storeDir } from '../store/db.js';
import { importDataDir, statusOf } from '../store/pg/import.js';
import { type Io, parseCommand } from './io.js';

export const clusterUsage = `  splitguard cluster import [--data-dir DIR]          copy a single-node data directory into PostgreSQL; prints counts
  splitguard cluster status                            nodes, last seen, replication lag, database served, settings (JSON)`;

function databaseUrl(config: Config, command: string): string {
  if (config.databaseUrl === null) {
    throw new AppError('cli_failed', `${command}: SPLITGUARD_DATABASE_URL (and SPLITGUARD_REDIS_URL) must name the cluster's PostgreSQL`);
  }
  return config.databaseUrl;
}

export async function clusterCommand(io: Io, args: string[], config: Config): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'import') {
    const { values } = parseCommand('cluster import', rest, { 'data-dir': { type: 'string' } }, false);
    const dir = path.resolve((values['data-dir'] as string | undefined) ?? io.dataDir);
    // Opening a store creates one: a mistyped directory would import nothing and report success.
    if (!hasStore(dir)) throw new AppError('cli_failed', `cluster import: there is no store to import in ${storeDir(dir)}`);
    const counts = await importDataDir(dir, databaseUrl(config, 'cluster import'), config.sketchDays);
    io.out(JSON.stringify({ data_dir: dir, ...counts }));
    return 0;
  }
  if (sub === 'status') {
    parseCommand('cluster status', rest, {}, false);
    io.out(JSON.stringify(await statusOf(databaseUrl(config, 'cluster status'))));
    return 0;
  }
  throw new AppError('cli_usage', `usage:\n${clusterUsage}`);
}
