// TLS 1.2 and 1.3 only. uWebSockets.js (uSockets, src/crypto/openssl.c,
// create_ssl_context_from_options) sets SSL_CTX_set_min_proto_version to
// TLS 1.2 for every SSLApp, and splitguard passes no option that lowers it:
// a TLS 1.0 or 1.1 ClientHello gets a protocol_version alert. Checked with
// `openssl s_client`, the client offering the old versions with security
// level 0 so that the refusal is the server's and not the client's own.
import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/server.js';

const haveOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

function sClient(version: string): Promise<{ out: string; code: number | null }> {
  const args = ['s_client', '-connect', `127.0.0.1:${server.ports[0]}`, '-servername', 'localhost', `-${version}`, '-CAfile', path.join(server.dataDir, 'tls', 'cert.pem')];
  if (version === 'tls1' || version === 'tls1_1') args.push('-cipher', 'DEFAULT:@SECLEVEL=0');
  return new Promise((resolve) => {
    const child = execFile('openssl', args, { timeout: 15_000 }, (err, stdout, stderr) => {
      resolve({ out: `${stdout}${stderr}`, code: child.exitCode ?? (err ? 1 : 0) });
    });
    // openssl may have exited already (a refused handshake): writing to its closed stdin is EPIPE, which is no failure of the test.
    child.stdin!.on('error', () => {});
    child.stdin!.end('Q\n');
  });
}

describe.skipIf(!haveOpenssl)('openssl s_client against the server', () => {
  it.each(['tls1', 'tls1_1'])('-%s: the handshake is refused with a protocol_version alert', async (version) => {
    const r = await sClient(version);
    expect(r.code, r.out).not.toBe(0);
    expect(r.out).toMatch(/alert protocol version|unsupported protocol|no protocols available/i);
    expect(r.out).toMatch(/Cipher is \(NONE\)|no peer certificate available/);
  });

  it.each([
    ['tls1_2', 'TLSv1.2'],
    ['tls1_3', 'TLSv1.3'],
  ])('-%s: the handshake completes and the certificate verifies', async (version, protocol) => {
    const r = await sClient(version);
    expect(r.out).toMatch(new RegExp(`New, ${protocol.replace('.', '\\.')}, Cipher is (?!\\(NONE\\))`));
    expect(r.out).toMatch(/Verify return code: 0 \(ok\)/);
  });
});
