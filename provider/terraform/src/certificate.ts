// go-plugin's mutual TLS, the plugin's half: a fresh self-signed certificate for "localhost" per process,
// whose DER goes to Terraform in the handshake line; Terraform's own certificate comes in PLUGIN_CLIENT_CERT.
// Node.js makes the key and the signature; the certificate around them is one fixed template, written here in DER
// (der.ts): an X.509 library would be evaluated at every start of the provider, which Terraform starts several
// times per command.
import { createHash, generateKeyPair, randomBytes, sign, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import {
  bitString,
  booleanTrue,
  explicit,
  implicitText,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  unsignedInteger,
  utf8String,
} from './der';

export interface ServerCertificate {
  certificatePem: string;
  privateKeyPem: string;
  /** The DER bytes, base64 without padding, as the handshake line carries them. */
  handshakeBase64: string;
}

const VALIDITY_MS = 365 * 24 * 3600 * 1000;

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

/** digitalSignature (bit 0), keyEncipherment (bit 2) and keyCertSign (bit 5), in the six bits up to the last. */
const KEY_USAGE_BITS = bitString(Buffer.from([0b1010_0100]), 6);

/** An extension; `critical` only when it is, as DER leaves a default value out. */
const extension = (oid: string, value: Uint8Array, critical = false) =>
  sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));

/** CN=localhost, O=jobhooks: the plugin's name as subject and, being self-signed, as issuer. */
const NAME = sequence(
  set(sequence(objectIdentifier(OID.commonName), utf8String('localhost'))),
  set(sequence(objectIdentifier(OID.organization), utf8String('jobhooks'))),
);

/**
 * As go-plugin's own certificates: a CA (it is its own root for the peer) usable by server and client, with the
 * subject key identifier RFC 5280 asks of a CA (the SHA-1 of the public key's bits, its section 4.2.1.2).
 */
function extensions(subjectPublicKeyInfo: Buffer): Buffer {
  // A P-256 key's info ends in its point, 04 || x || y: the bits the identifier hashes.
  const point = subjectPublicKeyInfo.subarray(subjectPublicKeyInfo.length - 65);
  return explicit(
    3,
    sequence(
      extension(OID.basicConstraints, sequence(booleanTrue()), true),
      extension(OID.keyUsage, KEY_USAGE_BITS, true),
      extension(OID.extendedKeyUsage, sequence(objectIdentifier(OID.serverAuth), objectIdentifier(OID.clientAuth))),
      extension(OID.subjectAltName, sequence(implicitText(2, 'localhost'))),
      extension(OID.subjectKeyIdentifier, octetString(createHash('sha1').update(point).digest())),
    ),
  );
}

const SIGNATURE_ALGORITHM = sequence(objectIdentifier(OID.ecdsaWithSha256));

export async function createServerCertificate(now = new Date()): Promise<ServerCertificate> {
  const { publicKey, privateKey } = await promisify(generateKeyPair)('ec', { namedCurve: 'prime256v1' });
  const subjectPublicKeyInfo = publicKey.export({ type: 'spki', format: 'der' });
  const tbsCertificate = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // version 3
    // 16 random bytes, the first between 0x40 and 0x7f: positive, and no byte shorter.
    unsignedInteger(Buffer.from(randomBytes(16).map((byte, i) => (i === 0 ? (byte & 0x3f) | 0x40 : byte)))),
    SIGNATURE_ALGORITHM,
    NAME,
    sequence(time(new Date(now.getTime() - 60_000)), time(new Date(now.getTime() + VALIDITY_MS))),
    NAME,
    subjectPublicKeyInfo,
    extensions(subjectPublicKeyInfo),
  );
  // An EC key signs in DER (ECDSA-Sig-Value), as a certificate carries it.
  const certificate = sequence(
    tbsCertificate,
    SIGNATURE_ALGORITHM,
    bitString(sign('sha256', tbsCertificate, privateKey)),
  );
  return {
    // Node.js writes the PEM from the DER it reads: a certificate OpenSSL cannot parse fails here, not in Terraform.
    certificatePem: new X509Certificate(certificate).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    handshakeBase64: certificate.toString('base64').replace(/=+$/, ''),
  };
}
