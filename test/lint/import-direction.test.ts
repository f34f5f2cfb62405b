// Imports flow one way, and lint enforces it: a wrong-way import fails `npm run lint`. The code
// is linted as if it sat at the given path, with the project's own eslint.config.js.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../../', import.meta.url).pathname });

async function importErrors(filePath: string, from: string): Promise<string[]> {
  const code = `import type { Something } from '${from}';\nexport type Alias = Something;\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import direction', () => {
  it.each([
    ['src/kinds/example.ts', '../plan/build-plan.js'],
    ['src/live/example.ts', '../plan/build-plan.js'],
    ['src/plan/example.ts', '../manifest/load-manifests.js'],
    ['src/plan/example.ts', '../live/fetch-live.js'],
    ['src/report/example.ts', '../apply/apply-plan.js'],
    ['src/ui/example.tsx', '../cli/flags.js'],
    ['src/ui/example.tsx', '../workflows/store-workflow.js'],
    ['src/ui/example.tsx', '../target/open-target.js'],
    ['src/target/example.ts', '../workflows/store-workflow.js'],
    ['src/target/example.ts', '../plan/build-plan.js'],
    ['src/state/example.ts', '../target/run-state.js'],
    ['src/manifest/example.ts', '../target/open-target.js'],
    ['src/api/example.ts', '../target/resolve-target.js'],
    ['src/apply/example.ts', '../workflows/store-workflow.js'],
    ['src/plan/example.ts', '../workflows/read-and-plan.js'],
    ['src/workflows/example.ts', '../cli/flags.js'],
    ['src/workflows/example.ts', '../ui/interactive-apply.js'],
    ['src/model/example.ts', '../kinds/kind.js'],
    ['src/api/example.ts', '../kinds/kind.js'],
    ['src/emulator/resources/example.ts', '../../kinds/kind.js'],
  ])('refuses %s importing %s', async (file, from) => {
    const errors = await importErrors(file, from);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('imports flow one way');
  });

  it.each([
    ['src/cli/example.ts', '../workflows/store-workflow.js'],
    ['src/workflows/example.ts', '../apply/apply-plan.js'],
    ['src/workflows/example.ts', '../target/open-target.js'],
    ['src/target/example.ts', '../state/state-store.js'],
    ['src/target/example.ts', '../manifest/load-config.js'],
    ['src/workflows/example.ts', '../drift/find-drift.js'],
    ['src/plan/example.ts', '../kinds/kind.js'],
    ['src/kinds/example.ts', '../model/plan.js'],
    ['src/drift/example.ts', '../plan/build-plan.js'],
    ['src/ui/example.tsx', '../report/apply-report.js'],
  ])('lets %s import %s', async (file, from) => {
    expect(await importErrors(file, from)).toEqual([]);
  });
});
