// The one place that loads uWebSockets.js. The package's own loader prints a
// warning and falls back to a slow JavaScript imitation when its binary does
// not load; splitguard loads the binary itself and stops with a clear message
// instead.
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Uws from 'uWebSockets.js';
import { AppError } from '../errors.js';

function load(): typeof Uws {
  const require = createRequire(import.meta.url);
  let dir: string;
  try {
    dir = path.dirname(require.resolve('uWebSockets.js/package.json'));
  } catch (err) {
    throw new AppError('addon_unavailable', 'uWebSockets.js is not installed; run "npm ci"', null, { cause: err });
  }
  const binary = path.join(dir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  try {
    return require(binary) as typeof Uws;
  } catch (err) {
    throw new AppError(
      'addon_unavailable',
      `the uWebSockets.js binary for this platform could not be loaded (${binary}): ${(err as Error).message}. ` +
        'splitguard does not run on the package\'s slow JavaScript fallback; use Node.js 20 on linux-x64/arm64 (glibc).',
      null,
      { cause: err },
    );
  }
}

export const uws = load();
export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
