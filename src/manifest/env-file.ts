// A target's env file (`envFile:` in erpsync.config.yaml): `KEY=value` lines, `#` comments, blank
// lines, an optional `export ` prefix, and values in single or double quotes kept verbatim. It may
// hold secrets, so problems name the line, never its value.
import type { Diagnostic } from '../model/diagnostics.js';

export function parseEnvFile(shown: string, text: string): { values: Record<string, string>; diagnostics: Diagnostic[] } {
  const values: Record<string, string> = {};
  const diagnostics: Diagnostic[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match?.[1]) {
      diagnostics.push({ severity: 'error', code: 'env-file-line', message: 'expected `NAME=value`', position: { file: shown, line: index + 1, col: 1 } });
      return;
    }
    const value = match[2] ?? '';
    const quoted = /^(["'])(.*)\1$/.exec(value);
    values[match[1]] = quoted ? (quoted[2] ?? '') : value.replace(/\s+#.*$/, '');
  });
  return { values, diagnostics };
}
