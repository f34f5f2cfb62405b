// The output mask: credential tokens only, and only those long enough that every occurrence is the
// token itself, so the masked output keeps its format.
import { describe, expect, it } from 'vitest';
import { createSecretMask, minTokenLength } from './secret-mask.js';

describe('the output mask', () => {
  it('masks a token in every form it travels in, and keeps JSON valid', () => {
    const token = 'tok-9f2c41d7e8a6b3c5';
    const mask = createSecretMask([token]);
    const json = JSON.stringify({ message: `refused ${token}`, encoded: Buffer.from(token).toString('base64'), ok: true });
    const masked = mask.mask(json);
    expect(masked).not.toContain(token);
    expect(masked).not.toContain(Buffer.from(token).toString('base64'));
    expect(JSON.parse(masked)).toEqual({ message: 'refused [redacted]', encoded: '[redacted]', ok: true });
  });

  it('leaves values shorter than a token alone: they could be a word, a number or a literal of the output itself', () => {
    const mask = createSecretMask(['true', '2.49', 'a'.repeat(minTokenLength - 1)]);
    const json = JSON.stringify({ utilizaDiasUteis: true, valor: 2.49 });
    expect(mask.mask(json)).toBe(json);
  });
});
