// The console's static files: read once at start-up from src/console/static
// (hand-written ES modules and CSS, no build step) by the main thread into
// one SharedArrayBuffer, and served by every server thread from views of it
// (off the V8 heap, and one copy for the process: app.js alone would be a
// 100 KB two-byte string in every thread, encoded to UTF-8 again for every
// answer), with a strict Content-Security-Policy. The console runs from
// dist/console/, so the files are looked for beside this module and then in
// the source tree.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CANDIDATES = [path.join(here, 'static'), path.join(here, '..', '..', 'src', 'console', 'static')];

/**
 * No inline script or style, nothing from another origin, never framed.
 * Trusted Types with no policy allowed: a string assigned to an HTML or
 * script sink (`innerHTML`, `insertAdjacentHTML`, a script's `src`) throws,
 * so a future change that renders data as markup fails at once instead of
 * opening a hole; the app builds every node with createElement and text.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; require-trusted-types-for 'script'; trusted-types 'none'";

/** Sent with every console response, static or API (send() adds `X-Content-Type-Options: nosniff` to every answer). */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const NAMES = ['index.html', 'app.js', 'charts.js', 'app.css', 'favicon.svg'];

interface StaticFile {
  type: string;
  body: Buffer;
}

interface StaticFiles {
  /** URL path (under /console/) → file. index.html answers /console and every page path. */
  files: Map<string, StaticFile>;
  index: StaticFile;
}

/** The files as the main thread hands them to the server threads: their bytes back to back, and where each lies. */
export interface ConsoleFiles {
  bytes: SharedArrayBuffer;
  /** In NAMES order: [offset, length] in `bytes`. */
  spans: [number, number][];
}

/** Reads the console's files (main thread); a missing one stops the start. */
export function loadConsoleFiles(): ConsoleFiles {
  const dir = CANDIDATES.find((d) => NAMES.every((name) => existsSync(path.join(d, name))));
  if (!dir) throw new AppError('console_files_missing', `looked in ${CANDIDATES.join(', ')}`);
  const contents = NAMES.map((name) => readFileSync(path.join(dir, name)));
  const bytes = new SharedArrayBuffer(contents.reduce((n, c) => n + c.length, 0));
  const spans: [number, number][] = [];
  let at = 0;
  for (const c of contents) {
    new Uint8Array(bytes, at, c.length).set(c);
    spans.push([at, c.length]);
    at += c.length;
  }
  return { bytes, spans };
}

/** A server thread's view of the files: no copy. */
export function staticFiles(shared: ConsoleFiles): StaticFiles {
  const files = new Map<string, StaticFile>();
  NAMES.forEach((name, i) => files.set(`/console/${name}`, { type: TYPES[path.extname(name)], body: Buffer.from(shared.bytes, ...shared.spans[i]) }));
  return { files, index: files.get('/console/index.html')! };
}
