// Validation at the edge: every failure is a 400 invalid_parameter that names
// the field and says what was expected (and, briefly, what came).
import { AppError, invalidParameter } from '../errors.js';

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a ${v.length}-character string` : `"${v}"`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

/** The body as a plain object with only `allowed` keys (and, if given, not any `readOnly` key). */
export function objectBody(body: unknown, allowed: readonly string[], readOnly: readonly string[] = []): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_parameter', `the body must be a JSON object, got ${describe(body)}`, 'body');
  }
  for (const key of Object.keys(body)) {
    if (readOnly.includes(key)) throw invalidParameter(key, 'is read-only');
    if (!allowed.includes(key)) throw invalidParameter(key, 'is not a known field');
  }
  return body as Record<string, unknown>;
}

/**
 * Characters a name may not hold: C0 and C1 controls (a NUL, an escape, a
 * line break) and the bidirectional embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069), which turn the text after a name around
 * wherever it is shown: "Tenant\u202E" made the console's lines about that
 * account read backwards. The marks U+200E and U+200F stay: right-to-left
 * names need them.
 */
const NOT_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A name: a string of `min` to `max` characters after trimming, without NOT_IN_NAMES. */
export function stringField(value: unknown, field: string, min: number, max: number): string {
  if (typeof value !== 'string') throw invalidParameter(field, `must be a string, got ${describe(value)}`);
  const bad = NOT_IN_NAMES.exec(value);
  if (bad) throw invalidParameter(field, `must not hold control characters or bidirectional overrides (U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`);
  const s = value.trim();
  // Characters as people (and JSON Schema's maxLength) count them: code points, not UTF-16 units.
  const length = s.length > max ? [...s].length : s.length;
  if (length < min || length > max) throw invalidParameter(field, `must be ${min} to ${max} characters after trimming`);
  return s;
}

/**
 * The query string's parameters: each of `allowed` at most once; an unknown
 * or repeated parameter is 400 naming it (a repeated one would otherwise be
 * read as its first value, silently).
 */
export function queryParams(query: string, allowed: readonly string[]): URLSearchParams {
  const q = new URLSearchParams(query);
  const seen = new Set<string>();
  for (const key of q.keys()) {
    if (key === '') throw invalidParameter('query', 'has a parameter without a name');
    if (!allowed.includes(key)) throw invalidParameter(key, 'is not a known parameter');
    if (seen.has(key)) throw invalidParameter(key, 'is given more than once');
    seen.add(key);
  }
  return q;
}

/** page (>= 1, default 1) and limit (1-100, default 20) from a query string. */
export function pageParams(q: URLSearchParams): { page: number; limit: number } {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = q.get(name);
    if (raw === null) return fallback;
    if (!/^[0-9]{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) throw invalidParameter(name, `must be an integer from ${min} to ${max}`);
    return Number(raw);
  };
  // Any page a JavaScript number holds exactly: one past the end is empty (contract §4), however far.
  return { page: int('page', 1, 1, Number.MAX_SAFE_INTEGER), limit: int('limit', 20, 1, 100) };
}
