// A private PostgreSQL for a test: initdb into a fresh temporary directory,
// the server on a free loopback port (no Unix socket outside that
// directory), stopped and started on demand (pg_ctl, waiting), removed at
// the end. PostgreSQL refuses to run as root: as root, the directory is
// given to the `postgres` user (Debian's package creates it) and every
// command runs as that user (runuser).
//
// Durability settings are off (fsync, synchronous_commit): the tests stop
// PostgreSQL cleanly or not at all, and every committed change is then kept
// anyway. bench/cluster.js starts its own with them on.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

/** The newest PostgreSQL of Debian's layout (/usr/lib/postgresql/<version>/bin), or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : null;
}

export interface TestPostgres {
  url: string;
  port: number;
  /** Stops the server (fast shutdown: sessions are ended, everything committed is kept). */
  stop(): void;
  start(): void;
  /** One query on a connection of its own. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>;
  close(): void;
}

export interface PostgresOptions {
  /** fsync and synchronous commits on (benchmarks). */
  durable?: boolean;
}

export async function startPostgres(options: PostgresOptions = {}): Promise<TestPostgres> {
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? ['runuser', '-u', 'postgres', '--', path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
    return execFileSync(command[0], command.slice(1), { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const durable = options.durable === true;
  const settings = [
    `-p ${port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, '-c max_connections=300',
    `-c fsync=${durable ? 'on' : 'off'}`, `-c synchronous_commit=${durable ? 'on' : 'off'}`, `-c full_page_writes=${durable ? 'on' : 'off'}`,
  ].join(' ');
  const start = () => run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    start: () => void start(),
    async query(sql, values) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
    },
    close() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const line = execFileSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).trim();
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
