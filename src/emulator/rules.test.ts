import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { activeReadings, emulatorReadings, readingIds, readingsFromEnvironment } from './readings.js';
import { emulatorRules, enforces, modeFromEnvironment, renderRulesTable } from './rules.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The emulator's code but the table's own file, where every id stands once by definition. */
function sourceText(dir: string, table: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceText(path, table);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== table ? readFileSync(path, 'utf8') : '';
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
    const code = sourceText(here, 'rules.ts');
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

describe('the named readings', () => {
  it('are each applied somewhere in the emulator and cite a source', () => {
    const code = sourceText(here, 'readings.ts');
    expect(readingIds.filter((id) => !code.includes(`'${id}'`))).toEqual([]);
    for (const reading of Object.values(emulatorReadings)) expect(reading.source).not.toBe('');
  });

  it('are read from ERPSYNC_EMULATOR_READINGS, and an unknown name is refused', () => {
    expect(readingsFromEnvironment({})).toEqual([]);
    expect(readingsFromEnvironment({ ERPSYNC_EMULATOR_READINGS: ' names-truncated , categories-unpaged' })).toEqual(['names-truncated', 'categories-unpaged']);
    expect(() => readingsFromEnvironment({ ERPSYNC_EMULATOR_READINGS: 'paging-off' })).toThrow(/unknown reading "paging-off"/);
  });

  it('apply in strict mode only when named, in lenient mode also those lenient mode takes', () => {
    expect([...activeReadings('strict', [])]).toEqual([]);
    expect(activeReadings('lenient', []).has('categories-unpaged')).toBe(true);
    expect(activeReadings('lenient', []).has('names-truncated')).toBe(false);
    expect(activeReadings('strict', ['names-truncated']).has('names-truncated')).toBe(true);
  });
});
