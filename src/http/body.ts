// Request bodies: size-capped before and while reading, parsed as JSON that
// may not carry prototype-poisoning keys.
import { AppError } from '../errors.js';
import { type Exchange, refuseAndClose, watchAbort } from './respond.js';

const BODY_LIMIT = 64 * 1024;

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Whether a Content-Type header names JSON (`application/json`, parameters allowed). */
export const isJsonType = (contentType: string): boolean => JSON_TYPE.test(contentType);

/** The refusal of a body its Content-Type does not declare as JSON. */
export const contentTypeError = (): AppError => new AppError('invalid_parameter', 'Content-Type must be application/json', 'Content-Type');

/**
 * A body in more pieces than this is refused and its connection closed:
 * each piece is a call from uWS into JavaScript, and a client writing its
 * body a byte at a time made 60,000 of them a request, 80-120 ms of its
 * thread (docs/reliability.md, finding 99). Clients write a body of 64 KiB
 * in a few TLS records, which arrive in a few reads.
 */
const BODY_PIECES = 1024;

/**
 * Reads the whole body. `declared` is the Content-Length header ('' when
 * absent). Rejects with payload_too_large as soon as the cap is passed.
 * Pieces are copied into one buffer, grown by doubling up to Content-Length
 * (or the cap, for a chunked body), so a connection holds at most the cap
 * however its body is cut (uWS reuses a piece's memory after the callback
 * returns; a Buffer kept per piece held 20 MiB for one of 60,000 bytes).
 * It also watches for the client going away: the promise then rejects instead of waiting forever for a
 * last chunk that will not come, so callers' in-flight counts go back down
 * and a graceful shutdown does not wait for such a request.
 */
export function readBody(exchange: Exchange, declared: string, limit = BODY_LIMIT): Promise<Buffer> {
  if (declared !== '' && Number(declared) > limit) return Promise.reject(new AppError('payload_too_large'));
  return new Promise((resolve, reject) => {
    // At most 4 KiB before any byte has come: a head declaring 64 KiB and sending nothing holds no more.
    const cap = declared !== '' ? Number(declared) : limit;
    let body = Buffer.allocUnsafe(Math.min(cap, 4096));
    let size = 0;
    let pieces = 0;
    let failed = false;
    watchAbort(exchange, () => {
      failed = true;
      reject(new AppError('invalid_json', 'the client closed the connection before the body was complete'));
    });
    exchange.res.onData((chunk, isLast) => {
      if (failed) return;
      const n = chunk.byteLength;
      if (size + n > limit) {
        failed = true;
        reject(new AppError('payload_too_large'));
        return;
      }
      if (++pieces > BODY_PIECES) {
        failed = true;
        const refusal = new AppError('invalid_parameter', `the body came in more than ${BODY_PIECES} pieces; send it in fewer, larger writes`, 'body');
        // Answered here, and the connection closed: nothing more of it is read. The caller finds the exchange answered.
        refuseAndClose(exchange, refusal);
        reject(refusal);
        return;
      }
      if (size + n > body.length) {
        // Up to Content-Length, which uWS holds the body to (past it only the cap, should a body not be).
        const grown = Buffer.allocUnsafe(Math.min(size + n <= cap ? cap : limit, Math.max(2 * body.length, size + n)));
        body.copy(grown, 0, 0, size);
        body = grown;
      }
      body.set(new Uint8Array(chunk), size);
      size += n;
      if (isLast) resolve(size === body.length ? body : body.subarray(0, size));
    });
  });
}

// A fast pre-check: only bodies that may hold a forbidden key or a lone
// surrogate pay for the reviver. A key can also be spelt with escapes
// ("\u005f_proto__"), which JSON.parse decodes, so any body with a \u escape
// takes the reviver too; a lone surrogate can only come from an escape (the
// UTF-8 decoder refuses one in the bytes).
const POISON = /"(?:__proto__|constructor|prototype)"\s*:|\\u/;

/** An unpaired UTF-16 surrogate: what String.prototype.isWellFormed (ES2024; not in TypeScript's ES2022 library) looks for. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function rejectPoison(key: string, value: unknown): unknown {
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    throw new AppError('invalid_json', `the key "${key}" is not allowed`, key);
  }
  // Not text: stored as UTF-8, it would come back as U+FFFD, not as what was acknowledged.
  const inKey = LONE_SURROGATE.test(key);
  if (inKey || (typeof value === 'string' && LONE_SURROGATE.test(value))) {
    throw new AppError('invalid_json', `${inKey ? 'a key' : `"${key}"`} holds an unpaired UTF-16 surrogate (\\ud800 to \\udfff), which is not text`, key);
  }
  return value;
}

/** One decoder for every body: decode() without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body; invalid_json for malformed input, bad UTF-8, unpaired surrogates or forbidden keys. */
export function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new AppError('invalid_json', 'the body is not valid UTF-8');
  }
  if (text.trim() === '') throw new AppError('invalid_json', 'the body is empty');
  try {
    return POISON.test(text) ? JSON.parse(text, rejectPoison) : JSON.parse(text);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('invalid_json', (err as Error).message);
  }
}
