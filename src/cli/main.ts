// The splitguard command. Exit codes: 0 success, 1 the command failed,
// 2 the command line itself was wrong.
//
// A command's module loads only when that command runs: `splitguard serve`
// starts its server threads before it loads the server's code (serve.ts),
// and no other command's code should load before them.
import { AppError } from '../errors.js';
import { loadConfig } from '../config.js';
import type { Io } from './io.js';
import { logToStderr } from '../log.js';
import { handleStorageCommitErrors } from '../store/commit-errors.js';

async function usage(): Promise<string> {
  const [{ adminUsage }, { backupUsage }, { clusterUsage }, { ipdbUsage }] = await Promise.all([
    import('./admin.js'), import('./backup.js'), import('./cluster.js'), import('./ipdb.js'),
  ]);
  return `splitguard: short-link A/B router with data-center filtering

Usage:
  splitguard serve                                     the HTTPS server (npm start)
  splitguard --version                                 the version; --help after any command: this text
${adminUsage}
${backupUsage}
${clusterUsage}
${ipdbUsage.replace(/^Usage:\n/, '')}

Environment: SPLITGUARD_DATA_DIR (default ./data) and the variables in docs/operations.md.`;
}

export async function run(argv: string[], io: Omit<Io, 'dataDir'>, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const [command, ...rest] = argv;
    // `splitguard ipdb lookup --help` as well as `splitguard --help`: one usage for every command.
    if (command === undefined || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
      io.out(await usage());
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === 'version') {
      io.out((await import('../version.js')).PACKAGE_VERSION);
      return 0;
    }
    const config = loadConfig(env);
    // Cluster mode: the commands write through PostgreSQL (the local store is a replica).
    const cluster = config.databaseUrl === null ? null : { databaseUrl: config.databaseUrl, nodeName: `${config.nodeName}-cli`, poolSize: 1 };
    const full: Io = { ...io, dataDir: config.dataDir, cluster };
    switch (command) {
      case 'serve':
        return await (await import('./serve.js')).serveCommand(full, rest, config);
      case 'account':
        return await (await import('./admin.js')).accountCommand(full, rest);
      case 'key':
        return await (await import('./admin.js')).keyCommand(full, rest);
      case 'user':
        return await (await import('./admin.js')).userCommand(full, rest);
      case 'backup':
        return await (await import('./backup.js')).backupCommand(full, rest);
      case 'restore':
        return await (await import('./backup.js')).restoreCommand(full, rest);
      case 'ipdb':
        return await (await import('./ipdb.js')).ipdbCommand(full, rest, config);
      case 'cluster':
        return await (await import('./cluster.js')).clusterCommand(full, rest, config);
      default:
        throw new AppError('cli_usage', `unknown command "${command}"\n\n${await usage()}`);
    }
  } catch (thrown) {
    // Out of descriptors before a command could check its limit (Node's module loader, serve/file-limit.ts).
    const err = (thrown as NodeJS.ErrnoException).code === 'EMFILE' ? new AppError('file_limit_too_low', `${(thrown as Error).message}; raise it (ulimit -n)`) : thrown;
    if (err instanceof AppError) {
      io.err(`splitguard: ${err.message}`);
      return err.code === 'cli_usage' || err.code === 'config_invalid' ? 2 : 1;
    }
    io.err(`splitguard: unexpected failure: ${(err as Error).stack ?? String(err)}`);
    return 1;
  }
}

export async function main(): Promise<void> {
  handleStorageCommitErrors();
  // A reader that stops early (`| head`) closes the pipe under the writer:
  // the rest of the output has nowhere to go, which is not the command
  // failing (it was an unhandled 'error' event and a stack trace). End at
  // once and quietly, as a shell tool does. Not `serve`: its standard output
  // is its log, and a server must not end without its drain, nor with exit 0
  // that a supervisor would take for a clean stop.
  if (process.argv[2] !== 'serve') {
    logToStderr();
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  }
  const code = await run(process.argv.slice(2), {
    stdin: process.stdin,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    interactive: Boolean(process.stderr.isTTY),
  });
  // A server that stopped for a failure (a thread that crashed, its cluster
  // name taken) set exit code 1 itself; a signal during that stop ends serve() with 0.
  if (code !== 0 || !process.exitCode) process.exitCode = code;
}
