// go-plugin's mutual TLS, the plugin's half: a fresh self-signed certificate for "localhost" per process,
// whose DER goes to Terraform in the handshake line; Terraform's own certificate comes in PLUGIN_CLIENT_CERT.
// @peculiar/x509 needs the reflect-metadata polyfill loaded first (its dependency-injection layer reads it).
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface ServerCertificate {
  certificatePem: string;
  privateKeyPem: string;
  /** The DER bytes, base64 without padding, as the handshake line carries them. */
  handshakeBase64: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const VALIDITY_MS = 365 * 24 * 3600 * 1000;

function pem(label: string, der: ArrayBuffer): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export async function createServerCertificate(now = new Date()): Promise<ServerCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: 'CN=localhost, O=jobhooks',
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + VALIDITY_MS),
    signingAlgorithm: ALGORITHM,
    keys: keys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
    extensions: [
      // As go-plugin's own certificates: a CA (it is its own root for the peer) usable by server and client.
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyCertSign,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }]),
    ],
  });
  const privateKey = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certificatePem: certificate.toString('pem'),
    privateKeyPem: pem('PRIVATE KEY', privateKey),
    handshakeBase64: Buffer.from(certificate.rawData).toString('base64').replace(/=+$/, ''),
  };
}
