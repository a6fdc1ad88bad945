// The embedded default source: the installed @ip-location-db/asn package
// (CC BY 4.0, RouteViews + NRO + DB-IP; see data/README.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface EmbeddedSource {
  name: string;
  version: string;
  files: string[];
}

export function embeddedSource(): EmbeddedSource {
  const require = createRequire(import.meta.url);
  const pkgFile = require.resolve('@ip-location-db/asn/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name: string; version: string };
  const dir = path.dirname(pkgFile);
  return {
    name: `${pkg.name}@${pkg.version}`,
    version: pkg.version,
    files: [path.join(dir, 'asn-ipv4.csv'), path.join(dir, 'asn-ipv6.csv')],
  };
}
