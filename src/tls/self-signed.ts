// A self-signed certificate for first start, so that no outside tool is
// needed: ECDSA P-256, X.509 v3 with subjectAltName for every host name and
// address the service answers to, serverAuth only. @peculiar/asn1-x509 writes
// the DER; node:crypto makes the key and signs. (@peculiar/x509, built on the
// same schemas, signs through WebCrypto and so only asynchronously; this runs
// synchronously at start, before anything listens.)
import type * as Asn1Schema from '@peculiar/asn1-schema';
import type * as Asn1X509 from '@peculiar/asn1-x509';
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import path from 'node:path';
import { DAY_MS } from '../days.js';
import { writeFileDurably } from '../durable-file.js';
import { AppError } from '../errors.js';
import { parseIp } from '../ipdb/address.js';
import { notADirectory, notARegularFile } from '../regular-file.js';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2'; // RFC 5758: parameters absent
const COMMON_NAME = '2.5.4.3';

// The ASN.1 schemas take 0.1-0.2 s to load, and only a first start generates
// a certificate: they are loaded then, not by every start and CLI command that
// imports this module. Both packages are CommonJS, so require stays synchronous.
const requireCjs = createRequire(import.meta.url);
const asn1Schema = () => requireCjs('@peculiar/asn1-schema') as typeof Asn1Schema;
const asn1X509 = () => requireCjs('@peculiar/asn1-x509') as typeof Asn1X509;

function commonName(text: string): Asn1X509.Name {
  const { AttributeTypeAndValue, AttributeValue, Name, RelativeDistinguishedName } = asn1X509();
  return new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: COMMON_NAME, value: new AttributeValue({ utf8String: text }) })])]);
}

function extension(extnID: string, critical: boolean, value: object): Asn1X509.Extension {
  const { AsnConvert, OctetString } = asn1Schema();
  return new (asn1X509().Extension)({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/**
 * A subjectAltName entry. asn1-x509 reads an address from text: an IPv4
 * address as four decimal parts, an IPv6 address as hexadecimal groups only
 * (a dotted tail such as ::ffff:127.0.0.1 would be misread), so an IPv6
 * address is given as its eight groups, from our own parser.
 */
function altName(host: string, bytes: Uint8Array): Asn1X509.GeneralName {
  const { GeneralName } = asn1X509();
  const family = parseIp(host, bytes);
  if (family === 4) return new GeneralName({ iPAddress: bytes.subarray(12).join('.') });
  if (family === 6) {
    const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16));
    return new GeneralName({ iPAddress: groups.join(':') });
  }
  return new GeneralName({ dNSName: host });
}

/** Builds a PEM certificate and key for the given host names and addresses. */
export function generateSelfSigned(hosts: string[], days = 825): { cert: string; key: string } {
  const { AsnConvert } = asn1Schema();
  const X509 = asn1X509();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const bytes = new Uint8Array(16);
  const alt = [...new Set(hosts)].map((h) => altName(h, bytes));
  // A positive serial in minimal DER: first byte in 0x40..0x7f (a leading
  // zero byte would be "illegal padding" to OpenSSL, a high bit negative).
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x3f) | 0x40;
  const now = Date.now();
  const signatureAlgorithm = new X509.AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const tbsCertificate = new X509.TBSCertificate({
    version: X509.Version.v3,
    serialNumber: new Uint8Array(serial).buffer,
    signature: signatureAlgorithm,
    issuer: commonName('splitguard self-signed'),
    validity: new X509.Validity({ notBefore: new Date(now - DAY_MS), notAfter: new Date(now + days * DAY_MS) }),
    subject: commonName('splitguard self-signed'),
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), X509.SubjectPublicKeyInfo),
    extensions: new X509.Extensions([
      extension(X509.id_ce_basicConstraints, true, new X509.BasicConstraints()),
      extension(X509.id_ce_keyUsage, true, new X509.KeyUsage(X509.KeyUsageFlags.digitalSignature)),
      extension(X509.id_ce_extKeyUsage, false, new X509.ExtendedKeyUsage([X509.id_kp_serverAuth])),
      extension(X509.id_ce_subjectAltName, false, new X509.SubjectAlternativeName(alt)),
    ]),
  });
  // ECDSA signatures from node:crypto are DER (r, s), as X.509 wants them.
  const signatureValue = new Uint8Array(sign('sha256', Buffer.from(AsnConvert.serialize(tbsCertificate)), privateKey)).buffer;
  const certificate = AsnConvert.serialize(new X509.Certificate({ tbsCertificate, signatureAlgorithm, signatureValue }));
  // Parse it back: a malformed certificate must fail here, not in a client.
  const cert = new X509Certificate(Buffer.from(certificate)).toString();
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { cert, key };
}

/** The host names a certificate must cover for this configuration. */
function servedHosts(urls: string[]): string[] {
  const hosts = ['localhost', '127.0.0.1', '::1', hostname()];
  for (const u of urls) hosts.push(new URL(u).hostname.replace(/^\[|\]$/g, ''));
  return hosts;
}

/**
 * Refuses what stands in the way of the data directory's pair, without
 * reading or writing anything: a start checks this before its first-start
 * work (the secrets, the store), as the configuration checks a configured
 * pair, so that a refused start has not bootstrapped the data directory.
 * Nothing to check when a pair is configured.
 */
export function checkTlsPlace(dataDir: string, configured: { cert: string | null; key: string | null }): void {
  if (configured.cert && configured.key) return;
  const dir = path.join(dataDir, 'tls');
  // A file there: every path below it fails with ENOTDIR, and nothing can be written there.
  if (notADirectory(dir)) throw new AppError('not_a_directory', dir);
  // Reading a FIFO would wait forever, and a directory cannot be replaced by a new pair.
  for (const file of [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')]) {
    if (notARegularFile(file)) {
      throw new AppError('tls_unusable', `${file} is not a regular file (a directory, FIFO or device); move it away and a new self-signed pair is made`);
    }
  }
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
  // A configured pair was checked with the configuration (config.ts checkTlsPair).
  if (configured.cert && configured.key) return { certFile: configured.cert, keyFile: configured.key, generated: false };
  checkTlsPlace(dataDir, configured);
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
