import { defineConfig } from 'vitest/config';

// Two projects: every test against the emulator in its default strict mode, then the scenario
// and chaos suites again with the emulator's inferred rules switched to their lenient reading
// (src/emulator/RULES.md), so erpsync is shown correct under both. The lenient group runs after
// the first (groupOrder) because the scenario folders hold their sandbox state in place.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'strict',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'test/**/*.test.tsx'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'lenient',
          include: ['test/scenarios/**/*.test.ts', 'test/reliability/chaos.test.ts'],
          env: { ERPSYNC_EMULATOR_MODE: 'lenient' },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
