// Encryption at rest for what the postgres backend keeps secret (logins): AES-256-GCM from
// node:crypto with a key from an environment variable, which never goes into the database. A
// sealed value is one version byte, a random 12-byte IV, the 16-byte tag and the ciphertext; the
// associated data names the row it belongs to, so a sealed value copied to another row does not
// open. This file never prints, and no message it makes quotes the key, a plaintext or a
// ciphertext; it knows nothing of SQL or of what the plaintext means.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ErpsyncError } from '../model/errors.js';

const sealedFormat = 1;
const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;
const headerBytes = 1 + ivBytes + tagBytes;
/** Far above any login (a few hundred bytes): a larger value read back is damaged, not opened. */
export const maxSealedBytes = 64 * 1024;

const hexKey = /^[0-9a-fA-F]{64}$/;
const base64Key = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/;

/** The 32-byte key in `env[keyEnv]` (base64 or 64 hex characters); missing or malformed is BACKEND_KEY. */
export function sealingKeyFrom(env: NodeJS.ProcessEnv, keyEnv: string): Buffer {
  const text = env[keyEnv]?.trim() ?? '';
  const howToMake = `make one with \`openssl rand -base64 32\`, keep it with the runners' secrets (never in the database) and give every runner the same`;
  if (text === '') {
    throw new ErpsyncError('BACKEND_KEY', `the postgres backend keeps logins encrypted with the key in ${keyEnv}, which is not set`, { details: [howToMake] });
  }
  const key = hexKey.test(text) ? Buffer.from(text, 'hex') : base64Key.test(text) ? Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64') : undefined;
  if (key?.length !== keyBytes) {
    throw new ErpsyncError('BACKEND_KEY', `${keyEnv} does not hold a 32-byte key (44 base64 characters or 64 hex characters; it holds ${text.length} characters)`, { details: [howToMake] });
  }
  return key;
}

/** Encrypts and authenticates `plaintext`, bound to `associatedData` (what row it belongs to). */
export function seal(key: Buffer, plaintext: string, associatedData: string): Buffer {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const sealed = Buffer.concat([Buffer.of(sealedFormat), iv, cipher.getAuthTag(), ciphertext]);
  if (sealed.length > maxSealedBytes) throw new ErpsyncError('INTERNAL', `a value to seal is ${sealed.length} bytes, more than the ${maxSealedBytes} the backend keeps`);
  return sealed;
}

/**
 * Opens what `seal` made with the same key and associated data. A value of the wrong size or an
 * unknown format is BACKEND_SCHEMA (damaged, or sealed by a newer erpsync); one that fails its
 * tag is BACKEND_KEY: another key, or a value altered or copied from another row.
 */
export function unseal(key: Buffer, sealed: Buffer, associatedData: string): string {
  if (sealed.length < headerBytes || sealed.length > maxSealedBytes) {
    throw new ErpsyncError('BACKEND_SCHEMA', `a sealed value of ${sealed.length} bytes is damaged (expected ${headerBytes} to ${maxSealedBytes})`);
  }
  if (sealed[0] !== sealedFormat) {
    throw new ErpsyncError('BACKEND_SCHEMA', `a sealed value is in format ${sealed[0]}, which this erpsync does not know (it knows ${sealedFormat})`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + ivBytes), { authTagLength: tagBytes });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(sealed.subarray(1 + ivBytes, headerBytes));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(headerBytes)), decipher.final()]).toString('utf8');
  } catch {
    // node:crypto says only "Unsupported state or unable to authenticate data"; nothing to keep.
    throw new ErpsyncError('BACKEND_KEY', 'a sealed value does not open with this key: it was sealed with another key, altered, or copied from another row');
  }
}
