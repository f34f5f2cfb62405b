// Diagnostics as text: one line each, whatever the quoted input holds.
import { describe, expect, it } from 'vitest';
import { renderDiagnosticsText } from './diagnostics-report.js';

describe('renderDiagnosticsText', () => {
  it('escapes line breaks, terminal escapes and bidi controls quoted from the input (found by the fuzz suite)', () => {
    const lines = renderDiagnosticsText([
      {
        severity: 'error',
        code: 'unknown-kind',
        message: 'unknown top-level key `x\n- desc\u001b[31mRED\u202e`',
        hint: 'did you mean\r\nversion?',
        position: { file: 'm.yaml', line: 2, col: 1 },
      },
    ]);
    expect(lines).toEqual(['m.yaml:2:1: error: unknown-kind: unknown top-level key `x\\n- desc\\u001b[31mRED\\u202e`', '    hint: did you mean\\u000d\\nversion?']);
  });
});
