// The steps of a start before any thread runs: the port, the TLS files'
// places, the database file, the first-start secrets and the TLS files.
import net from 'node:net';
import path from 'node:path';
import { bootstrap } from '../bootstrap.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { ensureCurrentDatabase } from '../ipdb/current.js';
import { log } from '../log.js';
import type { Storage } from '../store/storage.js';
import { checkTlsPlace, ensureTls } from '../tls/self-signed.js';

/**
 * The threads listen with SO_REUSEPORT so that they can share the port, which
 * would also let a second splitguard (or anything else with that option)
 * share it silently. A plain bind first fails if anyone is listening there.
 */
export function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new AppError('port_in_use', `${host}:${port}`) : new AppError('listen_failed', `${host}:${port} (${err.code ?? err.message})`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** current.trie, built from the installed package and the shipped feeds when missing or of an old format. */
export function prepareDatabaseFile(config: Config): string {
  const { file, built, replacedVersion } = ensureCurrentDatabase(config.dataDir, undefined, config.feeds);
  if (built) {
    // An undefined field is left out of the line.
    const replacedFormatVersion = replacedVersion ?? undefined;
    log('info', 'database_built', { file, v4Ranges: built.v4Ranges, v6Ranges: built.v6Ranges, size: built.size, replacedFormatVersion });
  }
  return file;
}

/**
 * On a first start: the admin login and an API key, shown once through
 * `announce`, and kept in bootstrap.json. When that file cannot be written
 * the start goes on (the store holds the login and the key, and a later
 * start makes none): the announcement is then the only copy, and says so.
 */
export async function bootstrapOnce(storage: Storage, dataDir: string, announce?: (text: string) => void): Promise<void> {
  const made = await bootstrap(storage, dataDir);
  if (!made) return;
  const { secrets, fileError } = made;
  const file = path.join(dataDir, 'bootstrap.json');
  log('info', 'bootstrap', { admin_email: secrets.admin_email, account_id: secrets.account_id, file });
  if (fileError !== null) log('error', 'bootstrap_file_unwritable', { file, error: fileError });
  announce?.(
    `splitguard first start: admin login ${secrets.admin_email} / ${secrets.admin_password}\n` +
      `API key for account ${secrets.account_id}: ${secrets.api_key}\n` +
      (fileError === null
        ? `(shown once; also in ${file}, mode 0600)`
        : `(shown once and only here: ${file} could not be written: ${fileError})`),
  );
}

/** What stands in the way of the data directory's TLS pair, refused before the first-start work (tls/self-signed.ts). */
export function checkTlsFiles(config: Config): void {
  checkTlsPlace(config.dataDir, { cert: config.tlsCert, key: config.tlsKey });
}

/** The TLS certificate and key: the configured ones, else a self-signed pair made once. */
export function prepareTls(config: Config): { certFile: string; keyFile: string } {
  const tls = ensureTls(config.dataDir, { cert: config.tlsCert, key: config.tlsKey }, [config.baseUrl, config.shortBase]);
  if (tls.generated) log('info', 'tls_self_signed', { cert: tls.certFile });
  return { certFile: tls.certFile, keyFile: tls.keyFile };
}
