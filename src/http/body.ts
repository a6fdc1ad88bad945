// Request bodies: size-capped before and while reading, parsed as JSON that
// may not carry prototype-poisoning keys.
import { AppError } from '../errors.js';
import { type Exchange, watchAbort } from './respond.js';

const BODY_LIMIT = 64 * 1024;

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Whether a Content-Type header names JSON (`application/json`, parameters allowed). */
export const isJsonType = (contentType: string): boolean => JSON_TYPE.test(contentType);

/** The refusal of a body its Content-Type does not declare as JSON. */
export const contentTypeError = (): AppError => new AppError('invalid_parameter', 'Content-Type must be application/json', 'Content-Type');

/**
 * Reads the whole body. `declared` is the Content-Length header ('' when
 * absent). Rejects with payload_too_large as soon as the cap is passed.
 * Chunks are copied: uWS reuses their memory after the callback returns.
 * It also watches for the client going away: the promise then rejects instead of waiting forever for a
 * last chunk that will not come, so callers' in-flight counts go back down
 * and a graceful shutdown does not wait for such a request.
 */
export function readBody(exchange: Exchange, declared: string, limit = BODY_LIMIT): Promise<Buffer> {
  if (declared !== '' && Number(declared) > limit) return Promise.reject(new AppError('payload_too_large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    watchAbort(exchange, () => {
      failed = true;
      reject(new AppError('invalid_json', 'the client closed the connection before the body was complete'));
    });
    exchange.res.onData((chunk, isLast) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > limit) {
        failed = true;
        reject(new AppError('payload_too_large'));
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
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
