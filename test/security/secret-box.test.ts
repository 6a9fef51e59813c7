// Secrets at rest: AES-256-GCM, with a key from the environment or a 0600 key file that survives restarts.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cryptoRandomBytes } from '../../service/src/core/random';
import { createSecretBox, loadSecretKey } from '../../service/src/security/secret-box';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobhooks-key-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('sealed secrets open with the same key, differ each time, and fail with another key or when tampered', () => {
  const key = cryptoRandomBytes(32);
  const box = createSecretBox(key, cryptoRandomBytes);
  const a = box.seal('s3cret');
  expect(box.open(a)).toBe('s3cret');
  expect(box.seal('s3cret')).not.toBe(a);
  expect(() => createSecretBox(cryptoRandomBytes(32), cryptoRandomBytes).open(a)).toThrow();
  const tampered = a.slice(0, -4) + (a.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  expect(() => box.open(tampered)).toThrow();
});

test('without JOBHOOKS_SECRET_KEY a key file is created with mode 0600 and reused on the next start', () => {
  const keyFile = join(dir, 'data', 'secret.key');
  const first = loadSecretKey({ envValue: undefined, keyFile, random: cryptoRandomBytes });
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const second = loadSecretKey({ envValue: undefined, keyFile, random: cryptoRandomBytes });
  expect(second.equals(first)).toBe(true);
});

test('JOBHOOKS_SECRET_KEY takes hex or base64 and wins over the file', () => {
  const hex = 'ab'.repeat(32);
  expect(loadSecretKey({ envValue: hex, keyFile: join(dir, 'k'), random: cryptoRandomBytes }).toString('hex')).toBe(
    hex,
  );
  const b64 = Buffer.from(hex, 'hex').toString('base64');
  expect(loadSecretKey({ envValue: b64, keyFile: join(dir, 'k'), random: cryptoRandomBytes }).toString('hex')).toBe(
    hex,
  );
});

test('a bad key is refused with a message that says what a key looks like', () => {
  expect(() => loadSecretKey({ envValue: 'too-short', keyFile: join(dir, 'k'), random: cryptoRandomBytes })).toThrow(
    /64 hex characters/,
  );
  writeFileSync(join(dir, 'bad.key'), 'garbage');
  expect(() =>
    loadSecretKey({ envValue: undefined, keyFile: join(dir, 'bad.key'), random: cryptoRandomBytes }),
  ).toThrow(/bad\.key does not hold a valid key/);
  expect(readFileSync(join(dir, 'bad.key'), 'utf8')).toBe('garbage');
});
