import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { activeReadings, emulatorReadings, readingIds, readingsFromEnvironment } from './readings.js';

const here = dirname(fileURLToPath(import.meta.url));

function sourceText(dir: string): string {
  return readdirSync(dir, { withFileTypes: true })
    .map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceText(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'readings.ts' ? readFileSync(path, 'utf8') : '';
    })
    .join('\n');
}

describe('the named readings', () => {
  it('are each applied somewhere in the emulator and cite a source', () => {
    const code = sourceText(here);
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
