import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactText } from './redact.js';

describe('redaction', () => {
  it('replaces registered secrets and their URL-encoded form', () => {
    const redactor = createRedactor(['s3cr3t/value+x']);
    const out = redactor.redact('a s3cr3t/value+x b s3cr3t%2Fvalue%2Bx c');
    expect(out).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  it('replaces credential-looking values whatever their value', () => {
    const text = [
      'Authorization: Bearer abc.def-ghi',
      'Basic dXNlcjpwYXNz',
      'grant_type=refresh_token&refresh_token=zzz&client_secret=yyy',
      '{"access_token":"t1","refreshToken":"t2","senha":"p\\"w"}',
    ].join('\n');
    const out = redactText(text, []);
    expect(out).not.toMatch(/abc\.def|dXNlcjpwYXNz|zzz|yyy|t1|t2|p\\"w/);
    expect(out).toContain('grant_type=refresh_token');
  });

  it('ignores empty and very short secrets so messages stay readable', () => {
    const redactor = createRedactor(['', 'ab', undefined]);
    expect(redactor.redact('ab cd')).toBe('ab cd');
  });

  it('prefers the longest secret when one contains another', () => {
    expect(redactText('tokenXYZ-long', ['tokenXYZ', 'tokenXYZ-long'])).toBe(REDACTED);
  });
});
