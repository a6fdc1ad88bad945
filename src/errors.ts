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

export const catalogue = {
  invalid_parameter: { status: 400, message: (d: string) => d || 'a parameter is invalid' },
  invalid_json: { status: 400, message: fixed('the request body is not valid JSON') },
  unauthorized: { status: 401, message: fixed('a valid API key is required') },
  quota_exceeded: { status: 403, message: fixed('the account has used its lifetime route quota') },
  not_found: { status: 404, message: fixed('not found') },
  method_not_allowed: { status: 405, message: fixed('method not allowed') },
  payload_too_large: { status: 413, message: fixed('the request body is larger than 64 KiB') },
  rate_limited: { status: 429, message: fixed('too many requests') },
  refresh_too_soon: { status: 429, message: fixed('the database may be refreshed once an hour') },

  // The web console (/console/api): its session and CSRF checks.
  login_failed: { status: 401, message: fixed('the email or password is not correct') },
  session_invalid: { status: 401, message: fixed('the console session is missing or has expired; sign in again') },
  csrf_failed: { status: 403, message: fixed('the request failed the CSRF check') },
  internal: { status: 500, message: () => 'internal server error' },

  // The IP database. The native reader's statuses (ipdb_bad_magic, …) arrive
  // with their own fixed message from native/trie_reader.cc; see IpdbError.
  ipdb_source_invalid: { status: 500, message: fixed('the database source is invalid') },
  ipdb_source_unreadable: { status: 500, message: fixed('the database source could not be read') },
  // A range or ASN feed file that cannot be used (src/ipdb/feeds/parse.ts).
  feed_invalid: { status: 500, message: fixed('the feed is invalid') },
  ipdb_missing: { status: 500, message: fixed('no IP database is installed') },
  // The API asked for a lookup while no database is loaded (Retry-After: a repair is under way).
  database_unavailable: { status: 503, message: fixed('no IP database is loaded yet; try again shortly') },

  // The data directory's LMDB store cannot be opened (read-only, no permission, ...).
  storage_unavailable: { status: 500, message: fixed('the storage in the data directory cannot be opened') },
  port_in_use: { status: 500, message: fixed('the address is already in use (another splitguard or another server listens there)') },

  // Writing a database file (ipdb build --out, a refresh's install) failed.
  ipdb_write_failed: { status: 500, message: fixed('the database file could not be written') },

  // The command line: a wrong command line (exit 2), or a command that ran
  // and failed (exit 1), e.g. an account that does not exist.
  cli_usage: { status: 400, message: (d: string) => d },
  cli_failed: { status: 500, message: (d: string) => d },
} satisfies Record<string, Entry>;

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
  /** Extra response headers (e.g. Retry-After). */
  headers: Record<string, string> | undefined;

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

// A failure of the native trie reader: the code is the reader's status name
// (e.g. ipdb_checksum_mismatch), the message its fixed sentence plus the path.
export class IpdbError extends AppError {
  constructor(nativeCode: string, nativeMessage: string, path: string, options?: { cause?: unknown }) {
    super('ipdb_source_invalid', '', null, options);
    this.name = 'IpdbError';
    Object.defineProperty(this, 'code', { value: nativeCode });
    this.message = path ? `${nativeMessage}: ${path}` : nativeMessage;
  }
}

export function invalidParameter(field: string, problem: string): AppError {
  return new AppError('invalid_parameter', `${field} ${problem}`, field);
}
