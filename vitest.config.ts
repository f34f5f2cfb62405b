import { configDefaults, defineConfig } from 'vitest/config';

// Every test runs against the emulator in its default strict mode, in one of three lanes: `fast`
// (the unit tests beside the code and the scenario folders: `npm run test:fast`, about 45 s) and
// `e2e` (the rest of test/: commands run end to end in this process, fleets of them, and the
// stages driven together), a file per core, as both are mostly CPU; and `slow` (the reliability suites, and tests of real processes, terminals and
// pipes, of pacing and of scale), with vitest's default of a core left free. Then the scenario
// and chaos suites run again with the emulator's inferred rules switched to their lenient reading
// (src/emulator/RULES.md), so erpsync is shown correct under both. Each group runs after the one
// before (groupOrder): the lenient group last, because the scenario folders hold their sandbox
// state in place.
const slow = [
  'test/reliability/**/*.test.ts',
  'test/ui/pty-*.test.ts',
  'test/cli/pipes-and-messages.test.ts',
  'test/cli/validate-start-up.test.ts',
  'test/manifest/hostile-files.test.ts',
  'test/api/pacing-limit.test.ts',
  'test/api/resilience.test.ts',
  'test/api/misbehaving-server.test.ts',
  'test/emulator/scale.test.ts',
  'test/report/dashboard-browser.test.ts',
  'test/report/dashboard-story.test.ts',
  'test/journal/must-show.test.ts',
  'test/journal/lost-server.test.ts',
  'test/cli/disk-full.test.ts',
  'test/cli/fleet-governor.test.ts',
  'test/cli/ip-ledger-concurrent.test.ts',
  'test/state/logins-kill.test.ts',
  'test/state/lease-pause.test.ts',
  'test/state/runners-share-backend.test.ts',
  'test/state/lease-lost-apply.test.ts',
  'test/state/backend-lost-apply.test.ts',
  'test/state/egress-shared-budget.test.ts',
  'test/cli/proxy-https.test.ts',
];

/** Beside the code, and the scenario folders: what to run while working. */
const fast = ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/scenarios/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: fast,
          exclude: [...configDefaults.exclude, ...slow],
          maxWorkers: '100%',
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...configDefaults.exclude, ...slow, ...fast],
          maxWorkers: '100%',
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: slow,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'lenient',
          include: ['test/scenarios/**/*.test.ts', 'test/reliability/chaos.test.ts'],
          env: { ERPSYNC_EMULATOR_MODE: 'lenient' },
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
