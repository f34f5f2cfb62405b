// The sealing of logins at rest: what seal makes opens only with its key and its row's associated
// data; anything altered, too small, too large or of an unknown format is refused with a code.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { maxSealedBytes, seal, sealingKeyFrom, unseal } from './crypto.js';

const key = randomBytes(32);
const row = '["erpsync login","loja-a","https://api.bling.com.br/Api/v3"]';

describe('seal and unseal', () => {
  it('round-trips, laid out as version, IV, tag and ciphertext, with a fresh IV each time', () => {
    const plaintext = '{"refreshToken":"r-1"}';
    const [first, second] = [seal(key, plaintext, row), seal(key, plaintext, row)];
    expect(first.length).toBe(1 + 12 + 16 + Buffer.byteLength(plaintext));
    expect(first[0]).toBe(1);
    expect(first.subarray(1, 13).equals(second.subarray(1, 13))).toBe(false);
    expect(unseal(key, first, row)).toBe(plaintext);
    expect(unseal(key, second, row)).toBe(plaintext);
  });

  it('refuses another key, another row and any altered byte with BACKEND_KEY', () => {
    const sealed = seal(key, 'secret', row);
    expect(() => unseal(randomBytes(32), sealed, row)).toThrow(expect.objectContaining({ code: 'BACKEND_KEY' }));
    expect(() => unseal(key, sealed, '["erpsync login","loja-b","https://api.bling.com.br/Api/v3"]')).toThrow(expect.objectContaining({ code: 'BACKEND_KEY' }));
    for (let at = 1; at < sealed.length; at += 1) {
      const altered = Buffer.from(sealed);
      altered[at] = (altered[at] ?? 0) ^ 0x01;
      expect(() => unseal(key, altered, row)).toThrow(expect.objectContaining({ code: 'BACKEND_KEY' }));
    }
  });

  it('refuses a value too short, too large or of an unknown format as damaged (BACKEND_SCHEMA), without opening it', () => {
    const sealed = seal(key, 'secret', row);
    const newer = Buffer.from(sealed);
    newer[0] = 2;
    for (const value of [sealed.subarray(0, 28), Buffer.alloc(maxSealedBytes + 1), newer]) {
      expect(() => unseal(key, value, row)).toThrow(expect.objectContaining({ code: 'BACKEND_SCHEMA' }));
    }
  });
});

describe('sealingKeyFrom', () => {
  it('reads 32 bytes given as base64, base64url or 64 hex characters', () => {
    for (const text of [key.toString('base64'), key.toString('base64url'), key.toString('hex'), ` ${key.toString('hex').toUpperCase()}\n`]) {
      expect(sealingKeyFrom({ K: text }, 'K').equals(key)).toBe(true);
    }
  });

  it('refuses a key of another length without quoting it', () => {
    for (const text of [randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), randomBytes(31).toString('hex'), `${key.toString('base64').slice(0, -2)}!=`]) {
      expect(() => sealingKeyFrom({ K: text }, 'K')).toThrow(expect.objectContaining({ code: 'BACKEND_KEY', message: expect.not.stringContaining(text) as unknown }));
    }
  });
});
