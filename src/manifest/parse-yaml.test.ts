// parseYamlFile reports problems as diagnostics only: nothing reaches the process's own output.
import { afterEach, describe, expect, it } from 'vitest';
import { parseYamlFile } from './parse-yaml.js';

const warnings: Error[] = [];
const collect = (warning: Error) => warnings.push(warning);

afterEach(() => {
  process.off('warning', collect);
  warnings.length = 0;
});

describe('parseYamlFile', () => {
  it('prints no process warning for a collection used as a key (found by the fuzz suite)', async () => {
    process.on('warning', collect);
    const parsed = parseYamlFile('m.yaml', Buffer.from('version: 1\n? { policy: 1 }\n: x\n'));
    // Process warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => w.message)).toEqual([]);
    expect(parsed.documents).toHaveLength(1);
  });
});
