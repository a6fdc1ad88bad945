// splitguard account create | key reset | user create | user password |
// user sign-out | user delete: direct changes through
// the storage. They work while the server runs: LMDB serialises writers
// across processes and every server thread reads the new state on its next
// request.
import { AppError } from '../errors.js';
import { DEFAULT_QUOTA, hashPassword, MAX_QUOTA, PASSWORD_MAX, PASSWORD_MIN, passwordLength } from '../store/accounts-store.js';
import { MAX_ID_DIGITS, parseId } from '../store/db.js';
import type { Storage } from '../store/storage.js';
import { type Io, parseCommand, withStorage } from './io.js';

export const adminUsage = `  splitguard account create --name NAME [--quota N]   prints {"account_id", "api_key"}
  splitguard key reset --account ID                    prints the new key; the old ones stop working
  splitguard user create --email E --password P [--admin] [--account ID]
  splitguard user password --email E --password P      sets the user's password; ends their sessions
  splitguard user sign-out --email E                   ends every console session of the user
  splitguard user delete --email E                     deletes the console login and ends its sessions;
                                                       its account and API keys stay
  (user create and user password take --password-stdin instead of --password:
   the password alone on standard input, kept out of the process list and shell history)`;

/** A command word this group does not have (or none), named, with the usage. */
const unknownSub = (group: string, sub: string | undefined) =>
  new AppError('cli_usage', `${sub === undefined ? `${group}: a command is required` : `unknown ${group} command "${sub}"`}\nusage:\n${adminUsage}`);

function positiveInt(command: string, flag: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new AppError('cli_usage', `${command}: --${flag} is required`);
  }
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) < 1 || Number(value) > MAX_QUOTA) {
    throw new AppError('cli_usage', `${command}: --${flag} must be a positive integer, got "${value}" (at most ${MAX_QUOTA})`);
  }
  return Number(value);
}

function accountFlag(command: string, value: string | undefined): number {
  if (value === undefined) throw new AppError('cli_usage', `${command}: --account is required`);
  const id = parseId(value);
  if (id === 0) throw new AppError('cli_usage', `${command}: --account must be a positive integer, got "${value}" (at most ${MAX_ID_DIGITS} digits)`);
  return id;
}

const STDIN_PASSWORD = 'the password on standard input';

const passwordTooLong = (command: string, what: string) => new AppError('cli_usage', `${command}: ${what} must be at most ${PASSWORD_MAX} characters (sign-in refuses longer ones)`);

const PASSWORD_OPTIONS = { password: { type: 'string' }, 'password-stdin': { type: 'boolean' } } as const;

/**
 * The password of --password or --password-stdin, measured as sign-in
 * measures passwords (characters, not UTF-16 units).
 */
async function passwordOption(io: Io, command: string, values: { password?: unknown; 'password-stdin'?: unknown }): Promise<string> {
  const given = values.password as string | undefined;
  if (given !== undefined && values['password-stdin']) throw new AppError('cli_usage', `${command}: give --password or --password-stdin, not both`);
  if (given === undefined && !values['password-stdin']) throw new AppError('cli_usage', `${command}: --password (or --password-stdin) is required`);
  const what = given === undefined ? STDIN_PASSWORD : '--password';
  const password = given ?? (await passwordFromStdin(io, command));
  const length = passwordLength(password);
  if (length < PASSWORD_MIN) throw new AppError('cli_usage', `${command}: ${what} must be at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX) throw passwordTooLong(command, what);
  return password;
}

/**
 * Standard input as one password: UTF-8 text on one line, one line end
 * (\n or \r\n) after it allowed, as `printf '%s\n' "$PW" |` or a file
 * gives it. Anything else is refused, not trimmed: a second line, a byte
 * order mark or a stray byte would otherwise become part of a password
 * nobody could type.
 * Read only up to what the longest password can take in UTF-8.
 */
async function passwordFromStdin(io: Io, command: string): Promise<string> {
  if ((io.stdin as { isTTY?: boolean }).isTTY) {
    throw new AppError('cli_usage', `${command}: --password-stdin reads a pipe or a file, not a terminal (which would show the password as it is typed)`);
  }
  const limit = PASSWORD_MAX * 4 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > limit) throw passwordTooLong(command, STDIN_PASSWORD);
    chunks.push(bytes);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError('cli_usage', `${command}: --password-stdin: standard input is not UTF-8 text`);
  }
  const password = text.replace(/\r?\n$/, '');
  if (password.startsWith('\uFEFF')) throw new AppError('cli_usage', `${command}: --password-stdin: standard input starts with a byte order mark (save the file without one)`);
  if (password === '') throw new AppError('cli_usage', `${command}: --password-stdin: standard input held no password`);
  if (/[\r\n]/.test(password)) throw new AppError('cli_usage', `${command}: --password-stdin: standard input must hold the password alone, on one line`);
  return password;
}

/** --email of an existing user, as sign-in reads it (trimmed, lower case). */
function userEmailFlag(command: string, value: string | undefined): string {
  const email = value?.trim().toLowerCase() ?? '';
  if (email === '') throw new AppError('cli_usage', `${command}: --email is required`);
  return email;
}

// A missing account or a taken email is not a wrong command line: the
// command ran and failed (exit 1, not 2).
function requireAccount(storage: Storage, command: string, id: number): void {
  if (!storage.accounts.get(id)) throw new AppError('cli_failed', `${command}: account ${id} does not exist`);
}

const noUser = (command: string, email: string) => new AppError('cli_failed', `${command}: there is no user with email ${email}`);

/** Runs `work` with the data directory's storage open and prints its result, one JSON line. */
async function printed(io: Io, work: (storage: Storage) => Promise<unknown>): Promise<number> {
  io.out(JSON.stringify(await withStorage(io, work)));
  return 0;
}

export async function accountCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw unknownSub('account', sub);
  const { values } = parseCommand('account create', rest, { name: { type: 'string' }, quota: { type: 'string' } }, false);
  const name = (values.name as string | undefined)?.trim();
  if (!name) throw new AppError('cli_usage', 'account create: --name NAME is required');
  if (name.length > 200) throw new AppError('cli_usage', 'account create: --name must be at most 200 characters');
  const quota = positiveInt('account create', 'quota', values.quota as string | undefined, DEFAULT_QUOTA);
  return printed(io, async (storage) => {
    const account = await storage.accounts.create(name, quota);
    const { token } = await storage.keys.create(account.id, 'default', false);
    return { account_id: account.id, name: account.name, quota: account.quota, api_key: token };
  });
}

export async function keyCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'reset') throw unknownSub('key', sub);
  const { values } = parseCommand('key reset', rest, { account: { type: 'string' } }, false);
  const id = accountFlag('key reset', values.account as string | undefined);
  return printed(io, async (storage) => {
    requireAccount(storage, 'key reset', id);
    const { token, key } = await storage.keys.resetAccount(id);
    return { account_id: id, key_id: key.id, api_key: token };
  });
}

export async function userCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'sign-out') return userSignOut(io, rest);
  if (sub === 'password') return userPassword(io, rest);
  if (sub === 'delete') return userDelete(io, rest);
  if (sub !== 'create') throw unknownSub('user', sub);
  const { values } = parseCommand(
    'user create',
    rest,
    { email: { type: 'string' }, ...PASSWORD_OPTIONS, admin: { type: 'boolean' }, account: { type: 'string' } },
    false,
  );
  const email = (values.email as string | undefined)?.trim() ?? '';
  if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) throw new AppError('cli_usage', `user create: --email must be an email address, got "${email}"`);
  const password = await passwordOption(io, 'user create', values);
  return printed(io, async (storage) => {
    // Checked before an account is made for the user, so that a refused
    // user leaves no account behind.
    if (storage.users.get(email.toLowerCase())) throw new AppError('cli_failed', `user create: a user with email ${email.toLowerCase()} already exists`);
    let accountId: number;
    if (values.account !== undefined) {
      accountId = accountFlag('user create', values.account as string);
      requireAccount(storage, 'user create', accountId);
    } else {
      accountId = (await storage.accounts.create(email)).id;
    }
    try {
      const user = await storage.users.create(email, password, Boolean(values.admin), accountId);
      return { email: user.email, admin: user.admin, account_id: user.accountId };
    } catch (err) {
      throw new AppError('cli_failed', `user create: ${(err as Error).message}`);
    }
  });
}

/** Ends every console session of a user (a lost device, a stolen cookie), on every node: the console's "Sign out everywhere" for an operator. */
async function userSignOut(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('user sign-out', args, { email: { type: 'string' } }, false);
  const email = userEmailFlag('user sign-out', values.email as string | undefined);
  return printed(io, async (storage) => {
    if (!storage.users.get(email)) throw noUser('user sign-out', email);
    return { email, sessions_ended: await storage.sessions.deleteOfUser(email) };
  });
}

/** Sets a user's password (a forgotten one, a leaked one) and ends every session of theirs. */
async function userPassword(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('user password', args, { email: { type: 'string' }, ...PASSWORD_OPTIONS }, false);
  const email = userEmailFlag('user password', values.email as string | undefined);
  const password = await passwordOption(io, 'user password', values);
  return printed(io, async (storage) => {
    // Checked first too, so that no password is hashed for nobody.
    if (!storage.users.get(email)) throw noUser('user password', email);
    const reset = await storage.users.resetPasswordHash(email, await hashPassword(password));
    if (!reset) throw noUser('user password', email);
    return { email, sessions_ended: reset.sessionsEnded };
  });
}

/**
 * Deletes a console login (someone who left) and ends every session of
 * theirs, in one transaction. Their account, its routes and API keys stay:
 * they may belong to others too (`key reset` ends the keys).
 */
async function userDelete(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('user delete', args, { email: { type: 'string' } }, false);
  const email = userEmailFlag('user delete', values.email as string | undefined);
  return printed(io, async (storage) => {
    const deleted = await storage.users.delete(email);
    if (deleted === null) throw noUser('user delete', email);
    if (deleted === 'last_admin') throw new AppError('cli_failed', `user delete: ${email} is the last admin login; make another first (user create --admin)`);
    return { email, account_id: deleted.accountId, sessions_ended: deleted.sessionsEnded };
  });
}
