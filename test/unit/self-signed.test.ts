import { X509Certificate, createPrivateKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../src/tls/self-signed.js';

describe('generateSelfSigned', () => {
  it('always produces a certificate OpenSSL accepts (the random serial stays minimal DER)', () => {
    // About 1 serial in 256 once started with a zero byte, which OpenSSL rejects.
    for (let i = 0; i < 600; i++) {
      const { cert, key } = generateSelfSigned(['localhost', '127.0.0.1']);
      const x = new X509Certificate(cert);
      expect(x.verify(x.publicKey)).toBe(true);
      // The key file belongs to the certificate.
      const signature = sign('sha256', Buffer.from('probe'), createPrivateKey(key));
      expect(verify('sha256', Buffer.from('probe'), x.publicKey, signature)).toBe(true);
    }
  });

  it('names every served host and address, for server authentication only', () => {
    const { cert } = generateSelfSigned(['localhost', '127.0.0.1', '::1', 'links.example.com']);
    const x = new X509Certificate(cert);
    expect(x.checkHost('links.example.com')).toBe('links.example.com');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.checkIP('::1')).toBe('::1');
    expect(x.checkHost('other.example.com')).toBeUndefined();
    expect(x.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(x.ca).toBe(false);
  });
});
