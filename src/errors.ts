// The one catalogue of splitguard errors: every error has a stable code, an
// HTTP status (for the API) and a fixed message. Messages that need a field
// name or a path take it as an argument; nothing else is formatted ad hoc.

export interface ErrorBody {
  error: string;
  code: string;
  field: string | null;
}

type Message = (detail: string) => string;

interface Entry {
  status: number;
  message: Message;
}

const fixed = (text: string): Message => (detail) => (detail ? `${text}: ${detail}` : text);

/**
 * The native addon's statuses. Their fixed sentences live in the C++ status
 * tables (native/trie_reader.cc, native/connection_guard.cc) and arrive with
 * each failure; here they get their HTTP status. test/native/status-catalogue
 * checks that these lists and the addon's tables name the same codes.
 */
export const NATIVE_IPDB_CODES = [
  'ipdb_open_failed', 'ipdb_not_a_file', 'ipdb_truncated', 'ipdb_too_large', 'ipdb_map_failed', 'ipdb_misaligned', 'ipdb_bad_magic',
  'ipdb_bad_version', 'ipdb_bad_header', 'ipdb_size_mismatch', 'ipdb_offset_out_of_range', 'ipdb_section_size', 'ipdb_checksum_mismatch',
  'ipdb_bad_node', 'ipdb_bad_index', 'ipdb_child_out_of_range', 'ipdb_cycle', 'ipdb_shared_node', 'ipdb_orphan_node', 'ipdb_too_deep',
  'ipdb_record_out_of_range', 'ipdb_string_out_of_range', 'ipdb_bad_utf8', 'ipdb_bad_ranges', 'ipdb_copy_failed', 'ipdb_bad_feed',
  'ipdb_feed_out_of_range',
] as const;
export const NATIVE_GUARD_CODES = [
  'connguard_netlink_open_failed', 'connguard_netlink_send_failed', 'connguard_netlink_receive_failed', 'connguard_netlink_timeout',
  'connguard_netlink_truncated', 'connguard_netlink_error', 'connguard_netlink_malformed', 'connguard_netlink_ended',
  'connguard_too_many_connections', 'connguard_fd_dir_failed', 'connguard_reserve_failed', 'connguard_rlimit_failed', 'connguard_invalid_port',
] as const;
/** A native status's entry: the detail is the addon's own sentence (and the path). */
const native = <const C extends readonly string[]>(codes: C) =>
  Object.fromEntries(codes.map((c) => [c, { status: 500, message: (d: string) => d || c }])) as Record<C[number], Entry>;

const ROUTE_QUOTA = 'the account has used its lifetime route quota';

const base = {
  invalid_parameter: { status: 400, message: (d: string) => d || 'a parameter is invalid' },
  invalid_json: { status: 400, message: fixed('the request body is not valid JSON') },
  unauthorized: { status: 401, message: fixed('a valid API key is required') },
  // The sentence says which quota (routeQuotaExceeded, conversionQuotaExceeded).
  quota_exceeded: { status: 403, message: (d: string) => d || ROUTE_QUOTA },
  not_found: { status: 404, message: fixed('not found') },
  method_not_allowed: { status: 405, message: fixed('method not allowed') },
  // PUT or DELETE /v1/routes/:id with an If-Match the stored route no longer has (api/routes.ts).
  precondition_failed: { status: 412, message: fixed('the route has changed since the version If-Match names; read it again and resend the change') },
  payload_too_large: { status: 413, message: fixed('the request body is larger than 64 KiB') },
  rate_limited: { status: 429, message: fixed('too many requests') },
  refresh_too_soon: { status: 429, message: fixed('the database may be refreshed once an hour') },
  // POST /v1/conversions: a click id this server did not issue, or not a click id at all (contract §10).
  invalid_click_id: { status: 400, message: fixed('the click id is malformed or was not issued by this server') },

  // The web console (/console/api): its session and CSRF checks.
  login_failed: { status: 401, message: fixed('the email or password is not correct') },
  session_invalid: { status: 401, message: fixed('the console session is missing or has expired; sign in again') },
  csrf_failed: { status: 403, message: fixed('the request failed the CSRF check') },
  internal: { status: 500, message: () => 'internal server error' },

  // The IP database. The native reader's statuses (ipdb_bad_magic, …) arrive
  // with their own fixed message from native/trie_reader.cc; see IpdbError.
  ipdb_source_invalid: { status: 500, message: fixed('the database source is invalid') },
  ipdb_source_unreadable: { status: 500, message: fixed('the database source could not be read') },
  // A refresh's candidate that fails a check against the well-known owners or the serving database (ipdb/candidate.ts).
  ipdb_candidate_refused: { status: 500, message: fixed('the new database was refused') },
  ipdb_build_failed: { status: 500, message: fixed('the database build failed') },
  // A range or ASN feed file that cannot be used (src/ipdb/feeds/parse.ts).
  feed_invalid: { status: 500, message: fixed('the feed is invalid') },
  ipdb_missing: { status: 500, message: fixed('no IP database is installed') },
  // The API asked for a lookup while no database is loaded (Retry-After: a repair is under way).
  database_unavailable: { status: 503, message: fixed('no IP database is loaded yet; try again shortly') },

  // The data directory's LMDB store cannot be opened (read-only, no permission, ...).
  storage_unusable: { status: 500, message: fixed('the storage in the data directory cannot be opened') },
  // Cluster mode (contract §9): PostgreSQL cannot be reached, so a write is
  // refused (with Retry-After); reads, redirects and key checks go on from
  // the node's replica.
  storage_unavailable: { status: 503, message: fixed('the cluster storage is unreachable; try again shortly') },
  // Cluster mode: PostgreSQL answered and refused: a role or password it does
  // not accept (SQLSTATE class 28), a database that does not exist (3D000).
  storage_refused: { status: 500, message: fixed('the cluster\'s PostgreSQL refused the connection (check SPLITGUARD_DATABASE_URL)') },
  // Cluster mode: another live process holds this node's name (store/pg/node.ts); the detail is the name and its last heartbeat.
  node_name_in_use: {
    status: 500,
    message: (d: string) => `the node name ${d} is held by another node: give every node a name of its own (SPLITGUARD_NODE_NAME), or, if that node has stopped, start again once it counts as stopped`,
  },
  // Cluster mode: the cluster's PostgreSQL schema is newer than this splitguard.
  cluster_schema_newer: { status: 500, message: fixed('the cluster database cannot be used') },
  // The cluster-wide limits' Redis did not answer in SPLITGUARD_REDIS_TIMEOUT_MS
  // (limits/redis-link.ts): logged; the node then decides alone, no client sees it.
  redis_timeout: { status: 500, message: fixed('Redis did not answer within the limits\' timeout') },
  port_in_use: { status: 500, message: fixed('the address is already in use (another splitguard or another server listens there)') },
  // Any other failure to listen (serve/startup.ts, a server thread's listen): the address, port and errno.
  listen_failed: { status: 500, message: fixed('cannot listen on the address') },
  // The web console's built files are not where serve looks (console/static.ts).
  console_files_missing: { status: 500, message: fixed('the console\'s files were not found') },
  // The data directory's TLS pair is in the way of a new one (tls/self-signed.ts).
  tls_unusable: { status: 500, message: fixed('the TLS certificate and key cannot be used') },
  // serve's open-file limit leaves the process too few descriptors (serve/file-limit.ts).
  file_limit_too_low: { status: 500, message: fixed('the open-file limit is too low') },

  // A download of a database or feed source failed (ipdb/fetch.ts, FetchError):
  // the URL as displayUrl shows it, then why; refresh outcomes record this text.
  fetch_failed: { status: 500, message: (d: string) => d },
  // A refresh or a download cut short because the server is stopping.
  stopped: { status: 500, message: fixed('stopped: the server is shutting down') },
  // A path an operator gave holds a FIFO, a device or an unreadable entry (regular-file.ts).
  not_a_regular_file: { status: 500, message: (d: string) => `${d} is not a regular file` },
  // The data directory's lock (src/data-lock.ts) is held: a second server on one directory, or a server during a restore.
  data_dir_in_use: {
    status: 500,
    message: (d: string) => `${d}; stop it first: a data directory belongs to one server at a time, and a restore needs it to itself`,
  },
  // A file (or a FIFO, a device) where the data directory keeps a directory
  // (ipdb/, tls/): the operator's to move away; the detail is its path.
  not_a_directory: { status: 500, message: (d: string) => `${d} is not a directory; the data directory needs a directory there (move it away and start again)` },

  // Writing a database file (ipdb build --out, a refresh's install) failed.
  ipdb_write_failed: { status: 500, message: fixed('the database file could not be written') },

  // The command line: a wrong command line (exit 2), or a command that ran
  // and failed (exit 1), e.g. an account that does not exist.
  cli_usage: { status: 400, message: (d: string) => d },
  cli_failed: { status: 500, message: (d: string) => d },
  // An environment variable with a value splitguard cannot use (configError).
  config_invalid: { status: 500, message: (d: string) => d },
  // The data directory was written by a newer splitguard (store/db.ts).
  schema_newer: { status: 500, message: fixed('the data directory cannot be used') },
  // Creating a user (CLI, first start): no API answers with it.
  user_exists: { status: 500, message: fixed('a user with this email already exists') },
  // A list file (src/quality/lists/, or one given to the hosting-list compiler) that cannot be used.
  list_invalid: { status: 500, message: fixed('a list file is invalid') },
  // uWebSockets.js or splitguard's own addon did not load (http/uws.ts, ipdb/native.ts).
  addon_unavailable: { status: 500, message: fixed('a native module could not be loaded') },
} satisfies Record<string, Entry>;

export const catalogue = { ...base, ...native(NATIVE_IPDB_CODES), ...native(NATIVE_GUARD_CODES) };

export type ErrorCode = keyof typeof catalogue;

/**
 * Whether an error of this status reaches a client as it is: client errors
 * (4xx) and the deliberate 503s (a part the answer needs is not available
 * yet). Anything else is sent as the one fixed `internal` body (publicError).
 */
export function sentAsIs(status: number): boolean {
  return status < 500 || status === 503;
}

/** The codes only the web console's API (/console/api) answers with; /v1 never does. */
export const CONSOLE_CODES: readonly ErrorCode[] = ['login_failed', 'session_invalid', 'csrf_failed'];

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly field: string | null;
  /** Extra response headers (e.g. Retry-After): set by the constructor only. */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail = '', field: string | null = null, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(catalogue[code].message(detail), options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = catalogue[code].status;
    this.field = field;
    this.headers = options?.headers;
  }

  body(): ErrorBody {
    return { error: this.message, code: this.code, field: this.field };
  }
}

/** Whether `code` is a native status this catalogue knows (the addon may be newer than this list). */
const isNativeCode = (code: string): code is (typeof NATIVE_IPDB_CODES)[number] => (NATIVE_IPDB_CODES as readonly string[]).includes(code);

// A failure of the native trie reader: the code is the reader's status name
// (e.g. ipdb_checksum_mismatch), the message its fixed sentence plus the path.
export class IpdbError extends AppError {
  constructor(nativeCode: string, nativeMessage: string, path: string, options?: { cause?: unknown }) {
    const known = isNativeCode(nativeCode);
    super(known ? nativeCode : 'ipdb_source_invalid', path ? `${nativeMessage}: ${path}` : nativeMessage, null, options);
    this.name = 'IpdbError';
  }
}

/**
 * `text` as a message quotes it: at most `max` characters, the last three of
 * them "..." when it was cut. Text from outside (a request path, a file's
 * line, an environment variable) may be any length; a message is read by
 * people and kept in logs.
 */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * Text a publisher chose (a line of a download, a redirect's Location, a
 * parser's message that quotes the body) as a refresh's message quotes it:
 * clipped, between “ and ”, which are taken out of the text itself (as ").
 * Every tenant reads the refresh's messages (GET /v1/ip/database); what a
 * publisher served, or what a redirect made this host fetch from its own
 * network, is for admins only, and publisherTextHidden takes exactly these
 * spans out. Text that is not the publisher's (a configured URL, a count)
 * stays outside the quotes.
 */
export function quoted(text: string, max: number): string {
  return `“${clip(text.replace(/[“”]/g, '"'), max)}”`;
}

/**
 * `message` as a tenant reads it: every span `quoted` made is “…”. A “ or ”
 * that is not quoted's (in a configured URL) can only hide more, never less:
 * a span runs from an opening mark to the first closing one, and quoted text
 * holds neither.
 */
export function publisherTextHidden(message: string): string;
export function publisherTextHidden(message: string | null): string | null;
export function publisherTextHidden(message: string | null): string | null {
  return message === null ? null : message.replace(/“[^”]*”/g, '“…”');
}

/** An environment variable splitguard cannot use: names it, what it expected and what it got. */
export class ConfigError extends AppError {
  readonly variable: string;
  constructor(variable: string, expected: string, got: string) {
    super('config_invalid', `${variable} must be ${expected}, got "${clip(got, 80)}"`, variable);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** A failed download: `url` as displayUrl shows it (no credentials or query), `reason` why it failed. */
export class FetchError extends AppError {
  readonly url: string;
  readonly reason: string;
  constructor(url: string, reason: string) {
    super('fetch_failed', `${url}: ${reason}`);
    this.name = 'FetchError';
    this.url = url;
    this.reason = reason;
  }
}

export function invalidParameter(field: string, problem: string): AppError {
  return new AppError('invalid_parameter', `${field} ${problem}`, field);
}

/** POST /v1/routes past the account's lifetime quota: its counts when known. */
export function routeQuotaExceeded(counts?: { created: number; quota: number }): AppError {
  return new AppError('quota_exceeded', counts ? `${ROUTE_QUOTA}: ${counts.created} of ${counts.quota} routes created` : '');
}

/** A new conversion for an account that stores its quota of them (SPLITGUARD_CONVERSION_QUOTA, or more once the quota was lowered). */
export function conversionQuotaExceeded(quota: number): AppError {
  return new AppError(
    'quota_exceeded',
    `the account stores ${quota} conversions, its quota (SPLITGUARD_CONVERSION_QUOTA); repeats are still answered, and deleting a route frees its conversions`,
  );
}
