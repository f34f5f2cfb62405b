import { describe, expect, it } from 'vitest';
import { readDuration } from './flags.js';

describe('readDuration', () => {
  it('reads hours, minutes and seconds, or plain seconds, as ms', () => {
    expect(readDuration('2h', '--within')).toBe(7_200_000);
    expect(readDuration('90m', '--within')).toBe(5_400_000);
    expect(readDuration('1h30m', '--within')).toBe(5_400_000);
    expect(readDuration('45s', '--within')).toBe(45_000);
    expect(readDuration('7200', '--within')).toBe(7_200_000);
    expect(readDuration(undefined, '--within')).toBeUndefined();
  });

  it('refuses anything else, naming the flag', () => {
    for (const text of ['2 h', '1.5h', 'h', '-1', '2d', '30m1h']) {
      expect(() => readDuration(text, '--within')).toThrow(/--within takes a duration/);
    }
  });
});
