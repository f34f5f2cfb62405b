import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emulatorRules, enforces, modeFromEnvironment, renderRulesTable } from './rules.js';

const here = dirname(fileURLToPath(import.meta.url));

function sourceText(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceText(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'rules.ts' ? readFileSync(path, 'utf8') : '';
    })
    .join('\n');
}

describe('the rule table', () => {
  it('is rendered to RULES.md', async () => {
    await expect(renderRulesTable()).toMatchFileSnapshot('./RULES.md');
  });

  it('gives every rule a source, and every strict-only rule its lenient reading', () => {
    for (const [id, rule] of Object.entries(emulatorRules)) {
      expect(rule.source, id).not.toBe('');
      expect('lenient' in rule, id).toBe(rule.applies === 'strict');
    }
  });

  it('names only rules the emulator code cites', () => {
    const code = sourceText(here);
    expect(Object.keys(emulatorRules).filter((id) => !code.includes(id))).toEqual([]);
  });

  it('applies documented rules in both modes and inferred ones in strict mode only', () => {
    expect(enforces('lenient', 'schema-members')).toBe(true);
    expect(enforces('strict', 'fixa-not-deletable')).toBe(true);
    expect(enforces('lenient', 'fixa-not-deletable')).toBe(false);
  });

  it('reads the mode from ERPSYNC_EMULATOR_MODE, strict by default, and refuses anything else', () => {
    expect(modeFromEnvironment({})).toBe('strict');
    expect(modeFromEnvironment({ ERPSYNC_EMULATOR_MODE: 'lenient' })).toBe('lenient');
    expect(() => modeFromEnvironment({ ERPSYNC_EMULATOR_MODE: 'lax' })).toThrow(/strict or lenient/);
  });
});
