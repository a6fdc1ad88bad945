// The console's static files: read once at start-up from src/console/static
// (hand-written ES modules and CSS, no build step) and served from memory as
// bytes (off the V8 heap: app.js alone would be a 100 KB two-byte string in
// every thread, encoded to UTF-8 again for every answer), with a strict
// Content-Security-Policy. The console runs from dist/console/, so the files
// are looked for beside this module and then in the source tree.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CANDIDATES = [path.join(here, 'static'), path.join(here, '..', '..', 'src', 'console', 'static')];

/** No inline script or style, nothing from another origin, never framed. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Sent with every console response, static or API. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
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

/** The console's files; a missing one stops the start. */
export function loadStatic(): StaticFiles {
  const dir = CANDIDATES.find((d) => NAMES.every((name) => existsSync(path.join(d, name))));
  if (!dir) throw new Error(`the console's files were not found (looked in ${CANDIDATES.join(', ')})`);
  const files = new Map<string, StaticFile>();
  for (const name of NAMES) files.set(`/console/${name}`, { type: TYPES[path.extname(name)], body: readFileSync(path.join(dir, name)) });
  return { files, index: files.get('/console/index.html')! };
}
