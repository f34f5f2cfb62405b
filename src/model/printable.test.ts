import { describe, expect, it } from 'vitest';
import { printable } from './printable.js';

describe('printable', () => {
  it('escapes control characters, line breaks and bidi controls, and keeps the rest', () => {
    expect(printable('Roupas\u001b[2J\nLimpa\u202etxt\u0085 — ação ✓')).toBe('Roupas\\u001b[2J\\nLimpa\\u202etxt\\u0085 — ação ✓');
    expect(printable('a\nb\tc', { keepLineBreaks: true })).toBe('a\nb\\tc');
  });
});
