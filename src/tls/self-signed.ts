// A self-signed certificate for first start, generated with node:crypto and a
// minimal DER writer, so that no outside tool is needed. ECDSA P-256, v3 with
// subjectAltName for every host name the service answers to, serverAuth only.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { writeFileDurably } from '../durable-file.js';
import { parseIp } from '../ipdb/address.js';

// DER: tag, length (short form below 128, else long form), contents.
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else if (n < 0x100) len = Buffer.from([0x81, n]);
  else if (n < 0x10000) len = Buffer.from([0x82, n >> 8, n & 0xff]);
  else len = Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...p: Buffer[]) => der(0x30, ...p);
const set = (...p: Buffer[]) => der(0x31, ...p);
function oid(text: string): Buffer {
  const [a, b, ...rest] = text.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const v of rest) {
    const groups = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) groups.unshift((x & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return der(0x06, Buffer.from(bytes));
}
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));
const extension = (id: string, critical: boolean, value: Buffer) =>
  seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));

/** Builds a PEM certificate and key for the given host names and addresses. */
export function generateSelfSigned(hosts: string[], days = 825): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const alt: Buffer[] = [];
  const bytes = new Uint8Array(16);
  for (const h of [...new Set(hosts)]) {
    const family = parseIp(h, bytes);
    if (family === 4) alt.push(der(0x87, Buffer.from(bytes.subarray(12))));
    else if (family === 6) alt.push(der(0x87, Buffer.from(bytes)));
    else alt.push(der(0x82, Buffer.from(h, 'ascii')));
  }
  // A positive serial in minimal DER: first byte in 0x40..0x7f (a leading
  // zero byte would be "illegal padding" to OpenSSL, a high bit negative).
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x3f) | 0x40;
  const now = Date.now();
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaSha256,
    name('splitguard self-signed'),
    seq(time(new Date(now - 86_400_000)), time(new Date(now + days * 86_400_000))),
    name('splitguard self-signed'),
    publicKey.export({ type: 'spki', format: 'der' }),
    der(
      0xa3,
      seq(
        extension('2.5.29.19', true, seq()),
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x07, 0x80]))),
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
        extension('2.5.29.17', false, seq(...alt)),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, ecdsaSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = `-----BEGIN CERTIFICATE-----\n${certDer.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // Parse it back: a malformed certificate must fail here, not in a client.
  new X509Certificate(cert);
  return { cert, key };
}

/** The host names a certificate must cover for this configuration. */
export function servedHosts(urls: string[]): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1', hostname()];
  for (const u of urls) hosts.push(new URL(u).hostname.replace(/^\[|\]$/g, ''));
  return hosts;
}

/**
 * The certificate and key files to serve: the configured ones, or a
 * self-signed pair generated into <data dir>/tls on first start and reused.
 */
export function ensureTls(
  dataDir: string,
  configured: { cert: string | null; key: string | null },
  urls: string[],
): { certFile: string; keyFile: string; generated: boolean } {
  if (configured.cert && configured.key) {
    for (const [variable, file] of [['SPLITGUARD_TLS_CERT', configured.cert], ['SPLITGUARD_TLS_KEY', configured.key]] as const) {
      if (!existsSync(file)) throw new Error(`${variable} names a file that does not exist: ${file}`);
    }
    try {
      new X509Certificate(readFileSync(configured.cert));
      createPrivateKey(readFileSync(configured.key));
    } catch (err) {
      throw new Error(`SPLITGUARD_TLS_CERT / SPLITGUARD_TLS_KEY are not a PEM certificate and key: ${(err as Error).message}`);
    }
    return { certFile: configured.cert, keyFile: configured.key, generated: false };
  }
  const dir = path.join(dataDir, 'tls');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile) && usablePair(certFile, keyFile)) return { certFile, keyFile, generated: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { cert, key } = generateSelfSigned(servedHosts(urls));
  writeFileDurably(keyFile, key, 0o600);
  writeFileDurably(certFile, cert, 0o644);
  return { certFile, keyFile, generated: true };
}

/**
 * Whether a generated pair can still be served. A crash of the machine soon
 * after the first start can leave both files empty (written, not yet on
 * disk); a pair that no longer parses is generated again instead of stopping
 * every later start with uWS's "App construction failed".
 */
function usablePair(certFile: string, keyFile: string): boolean {
  try {
    return new X509Certificate(readFileSync(certFile)).checkPrivateKey(createPrivateKey(readFileSync(keyFile)));
  } catch {
    return false;
  }
}
