// The provider's half of go-plugin's mutual TLS: the certificate it makes at each start, read back by Node.js's own
// X.509 parser, and the DER pieces it is written with, against encodings worked out from X.690 and RFC 5280.
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { createServerCertificate } from '../../provider/terraform/src/certificate';
import { bitString, objectIdentifier, sequence, time, unsignedInteger } from '../../provider/terraform/src/der';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const derOf = (pem: string) => Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');

test('a self-signed CA certificate for localhost, for server and client, valid from a minute before for a year', async () => {
  const now = new Date('2026-11-29T10:00:00Z');
  const made = await createServerCertificate(now);
  const certificate = new X509Certificate(made.certificatePem);
  expect(certificate.subject).toBe('CN=localhost\nO=jobhooks');
  expect(certificate.issuer).toBe(certificate.subject);
  expect(certificate.subjectAltName).toBe('DNS:localhost');
  expect(certificate.ca).toBe(true);
  expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']); // serverAuth, clientAuth
  expect(new Date(certificate.validFrom)).toEqual(new Date('2026-11-29T09:59:00Z'));
  expect(new Date(certificate.validTo)).toEqual(new Date('2027-11-29T10:00:00Z'));
  expect(certificate.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
  expect(certificate.verify(certificate.publicKey)).toBe(true);
  expect(certificate.checkPrivateKey(createPrivateKey(made.privateKeyPem))).toBe(true);
  // The handshake carries the same DER, base64 without padding.
  expect(Buffer.from(made.handshakeBase64, 'base64')).toEqual(derOf(made.certificatePem));
  expect(made.handshakeBase64).not.toMatch(/=/);
});

test('both extensions that restrict the key are critical, with exactly the bits go-plugin sets, and the key is named', async () => {
  const made = await createServerCertificate();
  const der = hex(derOf(made.certificatePem));
  // basicConstraints (2.5.29.19), critical, cA TRUE
  expect(der).toContain('300f0603551d130101ff040530030101ff');
  // keyUsage (2.5.29.15), critical: digitalSignature, keyEncipherment, keyCertSign (bits 0, 2 and 5; 2 unused)
  expect(der).toContain('300e0603551d0f0101ff0404030202a4');
  // subjectKeyIdentifier (2.5.29.14): the SHA-1 of the public key's point, 04 || x || y
  const { x, y } = new X509Certificate(made.certificatePem).publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')]);
  expect(der).toContain(`301d0603551d0e04160414${createHash('sha1').update(point).digest('hex')}`);
});

test('each certificate has a serial of its own, positive and in 16 bytes', async () => {
  const serials = await Promise.all(
    Array.from(
      { length: 20 },
      async () => new X509Certificate((await createServerCertificate()).certificatePem).serialNumber,
    ),
  );
  expect(new Set(serials).size).toBe(20);
  for (const serial of serials) expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
});

test('times: UTCTime through 2049, GeneralizedTime from 2050, which a certificate valid past 2049 carries', async () => {
  expect(hex(time(new Date('2049-12-31T23:59:59.999Z')))).toBe(hex(Buffer.from('\x17\x0d491231235959Z', 'latin1')));
  expect(hex(time(new Date('2050-01-01T00:00:00Z')))).toBe(hex(Buffer.from('\x18\x0f20500101000000Z', 'latin1')));
  const lateCertificate = new X509Certificate(
    (await createServerCertificate(new Date('2049-06-01T00:00:00Z'))).certificatePem,
  );
  expect(new Date(lateCertificate.validTo)).toEqual(new Date('2050-06-01T00:00:00Z'));
});

test('integers, object identifiers, bit strings and long lengths as DER writes them', () => {
  expect(hex(unsignedInteger(Buffer.from([0, 0, 0x7f])))).toBe('02017f');
  expect(hex(unsignedInteger(Buffer.from([0x80])))).toBe('02020080');
  expect(hex(unsignedInteger(Buffer.from([0])))).toBe('020100');
  expect(hex(objectIdentifier('1.2.840.10045.4.3.2'))).toBe('06082a8648ce3d040302');
  expect(hex(objectIdentifier('1.2.2147483648'))).toBe('06062a8880808000'); // an arc of 2^31
  expect(() => unsignedInteger(Buffer.alloc(0))).toThrow(RangeError);
  expect(hex(bitString(Buffer.from([0xa4]), 6))).toBe('030202a4');
  expect(hex(sequence(Buffer.alloc(200)).subarray(0, 3))).toBe('3081c8');
  expect(hex(sequence(Buffer.alloc(300)).subarray(0, 4))).toBe('3082012c');
});
