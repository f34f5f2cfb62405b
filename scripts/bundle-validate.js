// Build step, after tsc and generate-validators: bundles main with the validate command into
// dist/cli/validate.cjs and records V8's code cache of a run of it on examples/loja-nova, so
// `erpsync validate` starts without resolving modules or compiling most functions (see
// src/cli/fast-start.ts). Only what validate runs is bundled: the other commands, the emulator,
// undici and ajv's compiler are reached by dynamic import, which stays outside.
/* global AbortController -- a Node.js global, as everywhere in src */
import { writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { Writable } from 'node:stream';
import { build } from 'esbuild';
import { compileValidateBundle, validateBundleFile, validateCacheFile } from '../dist/cli/fast-start.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every dynamic import but validate's own stays an import: validate never runs those paths. */
const keepDynamicImportsOutside = {
  name: 'keep-dynamic-imports-outside',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' && !args.path.endsWith('/validate-command.js') ? { path: args.path, external: true } : undefined));
  },
};

await build({
  entryPoints: [fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))],
  outfile: validateBundleFile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  // A script has no import.meta: the bundle's own file stands in (paths are resolved from dist/cli).
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [keepDynamicImportsOutside],
  logLevel: 'warning',
});

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const compiled = compileValidateBundle();
await compiled.main(['validate', 'examples/loja-nova'], { stdout: discard(), stderr: discard(), stdin: process.stdin, env: {}, cwd: root, signal: new AbortController().signal });
writeFileSync(validateCacheFile, compiled.script.createCachedData());
