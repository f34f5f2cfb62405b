import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const srcRoot = resolve(here, '..');
const forbidden = ['kinds', 'api', 'manifest', 'plan', 'live', 'apply', 'report', 'ui', 'cli'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('emulator boundaries', () => {
  it('imports nothing from erpsync’s adapters, client or workflows, and no npm package', () => {
    const offenders = sourceFiles(here).flatMap((file) => {
      const specifiers = [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] ?? '');
      return specifiers
        .filter((spec) => {
          if (spec.startsWith('node:')) return false;
          if (!spec.startsWith('.')) return true;
          const top = relative(srcRoot, resolve(dirname(file), spec)).split(/[\\/]/)[0] ?? '';
          return forbidden.includes(top);
        })
        .map((spec) => `${relative(srcRoot, file)} → ${spec}`);
    });
    expect(offenders).toEqual([]);
  });
});
