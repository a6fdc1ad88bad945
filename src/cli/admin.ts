// splitguard account create | key reset | user create | user password |
// user sign-out: direct changes through
// the storage. They work while the server runs: LMDB serialises writers
// across processes and every server thread reads the new state on its next
// request.
import { AppError } from '../errors.js';
import { DEFAULT_QUOTA, hashPassword, PASSWORD_MAX, PASSWORD_MIN, passwordLength } from '../store/accounts-store.js';
import { MAX_ID_DIGITS, parseId } from '../store/db.js';
import type { Storage } from '../store/storage.js';
import { type Io, parseCommand, withStorage } from './io.js';

export const adminUsage = `  splitguard account create --name NAME [--quota N]   prints {"account_id", "api_key"}
  splitguard key reset --account ID                    prints the new key; the old ones stop working
  splitguard user create --email E --password P [--admin] [--account ID]
  splitguard user password --email E --password P      sets the user's password; ends their sessions
  splitguard user sign-out --email E                   ends every console session of the user`;

function positiveInt(command: string, flag: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback !== undefined) return fallback;
    throw new AppError('cli_usage', `${command}: --${flag} is required`);
  }
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) {
    throw new AppError('cli_usage', `${command}: --${flag} must be a positive integer, got "${value}" (at most 999999999)`);
  }
  return Number(value);
}

function accountFlag(command: string, value: string | undefined): number {
  if (value === undefined) throw new AppError('cli_usage', `${command}: --account is required`);
  const id = parseId(value);
  if (id === 0) throw new AppError('cli_usage', `${command}: --account must be a positive integer, got "${value}" (at most ${MAX_ID_DIGITS} digits)`);
  return id;
}

/** --password as sign-in takes passwords (characters, not UTF-16 units). */
function passwordFlag(command: string, value: string | undefined): string {
  if (value === undefined) throw new AppError('cli_usage', `${command}: --password is required`);
  const password = value;
  const length = passwordLength(password);
  if (length < PASSWORD_MIN) throw new AppError('cli_usage', `${command}: --password must be at least ${PASSWORD_MIN} characters`);
  if (length > PASSWORD_MAX) throw new AppError('cli_usage', `${command}: --password must be at most ${PASSWORD_MAX} characters (sign-in refuses longer ones)`);
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

export async function accountCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new AppError('cli_usage', `usage:\n${adminUsage}`);
  const { values } = parseCommand('account create', rest, { name: { type: 'string' }, quota: { type: 'string' } }, false);
  const name = (values.name as string | undefined)?.trim();
  if (!name) throw new AppError('cli_usage', 'account create: --name NAME is required');
  if (name.length > 200) throw new AppError('cli_usage', 'account create: --name must be at most 200 characters');
  const quota = positiveInt('account create', 'quota', values.quota as string | undefined, DEFAULT_QUOTA);
  const out = await withStorage(io, async (storage) => {
    const account = await storage.accounts.create(name, quota);
    const { token } = await storage.keys.create(account.id, 'default', false);
    return { account_id: account.id, name: account.name, quota: account.quota, api_key: token };
  });
  io.out(JSON.stringify(out));
  return 0;
}

export async function keyCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'reset') throw new AppError('cli_usage', `usage:\n${adminUsage}`);
  const { values } = parseCommand('key reset', rest, { account: { type: 'string' } }, false);
  const id = accountFlag('key reset', values.account as string | undefined);
  const out = await withStorage(io, async (storage) => {
    requireAccount(storage, 'key reset', id);
    const { token, key } = await storage.keys.resetAccount(id);
    return { account_id: id, key_id: key.id, api_key: token };
  });
  io.out(JSON.stringify(out));
  return 0;
}

export async function userCommand(io: Io, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'sign-out') return userSignOut(io, rest);
  if (sub === 'password') return userPassword(io, rest);
  if (sub !== 'create') throw new AppError('cli_usage', `usage:\n${adminUsage}`);
  const { values } = parseCommand(
    'user create',
    rest,
    { email: { type: 'string' }, password: { type: 'string' }, admin: { type: 'boolean' }, account: { type: 'string' } },
    false,
  );
  const email = (values.email as string | undefined)?.trim() ?? '';
  if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email)) throw new AppError('cli_usage', `user create: --email must be an email address, got "${email}"`);
  const password = passwordFlag('user create', values.password as string | undefined);
  const out = await withStorage(io, async (storage) => {
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
  io.out(JSON.stringify(out));
  return 0;
}

/** Ends every console session of a user (a lost device, a stolen cookie), on every node: the console's "Sign out everywhere" for an operator. */
async function userSignOut(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('user sign-out', args, { email: { type: 'string' } }, false);
  const email = userEmailFlag('user sign-out', values.email as string | undefined);
  const out = await withStorage(io, async (storage) => {
    if (!storage.users.get(email)) throw new AppError('cli_failed', `user sign-out: there is no user with email ${email}`);
    return { email, sessions_ended: await storage.sessions.deleteOfUser(email) };
  });
  io.out(JSON.stringify(out));
  return 0;
}

/** Sets a user's password (a forgotten one, a leaked one) and ends every session of theirs. */
async function userPassword(io: Io, args: string[]): Promise<number> {
  const { values } = parseCommand('user password', args, { email: { type: 'string' }, password: { type: 'string' } }, false);
  const email = userEmailFlag('user password', values.email as string | undefined);
  const password = passwordFlag('user password', values.password as string | undefined);
  const out = await withStorage(io, async (storage) => {
    // Checked first too, so that no password is hashed for nobody.
    const noUser = () => new AppError('cli_failed', `user password: there is no user with email ${email}`);
    if (!storage.users.get(email)) throw noUser();
    const reset = await storage.users.resetPasswordHash(email, await hashPassword(password));
    if (!reset) throw noUser();
    return { email, sessions_ended: reset.sessionsEnded };
  });
  io.out(JSON.stringify(out));
  return 0;
}
