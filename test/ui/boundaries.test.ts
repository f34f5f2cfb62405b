// Start-up stays fast and the layers stay apart: ink and React are imported only in src/ui, and
// src/ui only by src/cli, which loads it with a dynamic import (static imports of it are types).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const files = sourceFiles(src).map((file) => ({ file: path.relative(src, file), text: readFileSync(file, 'utf8') }));
const staticImports = (text: string) => [...text.matchAll(/^import\s+(type\s+)?[^'"]*?from\s+'([^']+)'/gm)].map((m) => ({ typeOnly: m[1] !== undefined, from: m[2] ?? '' }));

describe('UI boundaries', () => {
  it('imports ink and react only inside src/ui', () => {
    const offenders = files.filter(({ file, text }) => !file.startsWith('ui/') && staticImports(text).some((i) => /^(ink|react)(\/|$)/.test(i.from)));
    expect(offenders.map((f) => f.file)).toEqual([]);
  });

  it('lets only src/cli reach src/ui, and only lazily', () => {
    const reaching = files.filter(({ file, text }) => !file.startsWith('ui/') && (/from '[./]*ui\//.test(text) || /import\('[./]*ui\//.test(text)));
    expect(reaching.every((f) => f.file.startsWith('cli/'))).toBe(true);
    for (const { file, text } of reaching) {
      const eager = staticImports(text).filter((i) => i.from.includes('/ui/') && !i.typeOnly);
      expect(eager, file).toEqual([]);
    }
    expect(reaching.map((f) => f.file)).toContain('cli/apply-session.ts');
  });
});
