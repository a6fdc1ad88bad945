// The package's version (package.json), for `splitguard --version`: src/ and
// dist/ both sit one level below the package's root.
import { readFileSync } from 'node:fs';

export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
