import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Imports flow one way (DESIGN §1): cli → workflows → target → (manifest, live, plan, apply, export,
// report, drift, ui) → (state, kinds, api) → model; state (the state store and its backends) sits
// beside kinds and api. target opens a target (resolves it, its login, lease, IP share and daily
// quota, all through state) for the workflows: it reads the config through manifest, words the
// config's problems through report, and starts the embedded sandbox (the emulator, loaded on
// demand); nothing under it imports it back. Stages of one level do not import each other, with
// two exceptions that build on another stage by design: drift is reported from plans (it runs
// buildPlan and renders export's snippets), and ui draws what report computes. Only cli imports
// ui (the terminal is the edge's business). The emulator stands apart.
const allowed = {
  model: [],
  api: ['model'],
  kinds: ['api', 'model'],
  manifest: ['kinds', 'api', 'model'],
  live: ['kinds', 'api', 'model'],
  plan: ['kinds', 'api', 'model'],
  apply: ['kinds', 'api', 'model'],
  state: ['api', 'model'],
  export: ['kinds', 'api', 'model'],
  report: ['kinds', 'api', 'model'],
  drift: ['manifest', 'live', 'plan', 'export', 'kinds', 'api', 'model'],
  ui: ['report', 'kinds', 'api', 'model'],
  target: ['manifest', 'report', 'state', 'emulator', 'api', 'model'],
  workflows: ['target', 'manifest', 'live', 'plan', 'apply', 'export', 'report', 'drift', 'state', 'kinds', 'api', 'model'],
  emulator: ['model'],
};
const folders = [...Object.keys(allowed), 'cli'];

const layerRules = Object.entries(allowed).map(([folder, may]) => ({
  files: [`src/${folder}/**/*.ts`, `src/${folder}/**/*.tsx`],
  ignores: ['**/*.test.ts', '**/*.test.tsx'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: folders.filter((other) => other !== folder && !may.includes(other)).flatMap((other) => [`../${other}/*`, `../../${other}/*`]),
            message: `src/${folder} may import only from ${may.length > 0 ? may.map((m) => `src/${m}`).join(', ') : 'itself'} (imports flow one way: see eslint.config.js)`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.erpsync/**', '.bench-build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "MemberExpression[object.name='process'][property.name='exit']", message: 'Only src/cli/bin.ts may call process.exit' }],
    },
  },
  { files: ['src/cli/bin.ts'], rules: { 'no-restricted-syntax': 'off' } },
  ...layerRules,
);
