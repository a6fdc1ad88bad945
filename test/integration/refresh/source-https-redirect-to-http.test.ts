// An https node may redirect, but never off https: a redirect to plain http
// is refused before the plain request is made (anyone on the path of that
// leg could supply the database), the node fails naming the step, and the
// next node is tried. A redirect from https to https is followed as before.
// (undici's redirect interceptor followed the change of scheme, and the data
// that came in plaintext was credited to the https node.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSelfSigned } from '../../../src/tls/self-signed.js';
import { runCli } from '../../helpers/cli.js';
import { installTestDatabase, ROOT } from '../../helpers/ipdb-cache.js';
import type { RefreshRecord } from '../../helpers/refresh.js';
import { sourceName } from '../../helpers/refresh.js';
import { FILES, type SourceServer, startSourceServer } from '../../helpers/sources.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'sg-https-redirect-'));
let plain: SourceServer;
let secure: https.Server;
let secureBase: string;
const secureRequests: string[] = [];

beforeAll(async () => {
  plain = await startSourceServer();
  const { cert, key } = generateSelfSigned(['localhost', '127.0.0.1']);
  writeFileSync(path.join(root, 'ca.pem'), cert);
  // /to-plain/<file> redirects to the plain server's valid file; /to-secure/<file> to /direct/<file> here.
  secure = https.createServer({ cert, key }, (req, res) => {
    const [, mode = '', file = ''] = (req.url ?? '').split('/');
    secureRequests.push(req.url ?? '');
    if (mode === 'to-plain') res.writeHead(302, { Location: `${plain.base}/valid/${file}` }).end();
    else if (mode === 'to-secure') res.writeHead(301, { Location: `/direct/${file}` }).end();
    else if (mode === 'direct' && (FILES as readonly string[]).includes(file)) res.writeHead(200).end(readFileSync(path.join(ROOT, 'node_modules', '@ip-location-db', 'asn', file)));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  secureBase = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
});
afterAll(async () => {
  secure?.closeAllConnections();
  await new Promise<void>((resolve) => (secure ? secure.close(() => resolve()) : resolve()));
  await plain?.close();
  rmSync(root, { recursive: true, force: true });
});

it('refuses a redirect from https to http and fails over to a node that stays on https', async () => {
  const dataDir = path.join(root, 'data');
  installTestDatabase(dataDir);
  const toPlain = FILES.map((f) => `${secureBase}/to-plain/${f}`).join('|');
  const toSecure = FILES.map((f) => `${secureBase}/to-secure/${f}`).join('|');
  const env = { NODE_EXTRA_CA_CERTS: path.join(root, 'ca.pem'), SPLITGUARD_IPDB_SOURCES: `${toPlain},${toSecure}` };

  const r = await runCli(['ipdb', 'refresh'], dataDir, env, 90_000);
  expect(r.code, r.stderr).toBe(0);
  const record = JSON.parse(r.stdout) as RefreshRecord;
  expect(record).toMatchObject({ outcome: 'updated', source: sourceName(toSecure), error: null });
  expect(record.nodes.map((n) => [n.source, n.outcome])).toEqual([
    [sourceName(toPlain), 'failed'],
    [sourceName(toSecure), 'updated'],
  ]);
  // The first part to fail names its configured URL and the step; either part may be first.
  expect(record.nodes[0].error).toMatch(
    new RegExp(`^${secureBase}/to-plain/(asn-ipv[46]\\.csv): redirect 1 leaves https: ${secureBase}/to-plain/\\1 to “${plain.base}/valid/\\1”$`),
  );
  // Nothing was asked over the plain leg.
  expect(plain.requests).toEqual([]);
  expect(secureRequests.filter((u) => u.startsWith('/direct/')).sort()).toEqual(FILES.map((f) => `/direct/${f}`));
}, 120_000);
