// Build step, after tsc and generate-validators: bundles the compiled modules so no command starts
// by resolving and reading a hundred module files one by one (issue 16).
// - Every command: one ES module bundle, dist/cli/bundle-main.js, split at the dynamic imports
//   (each command, the terminal UI, the emulator) into chunks beside it, so a command loads only
//   its own code and no module exists twice. ink, react, undici and pg stay packages of their own.
//   The chunks sit in dist/cli, where main.js and export-command.js were, so the paths they
//   resolve from import.meta.url (package.json, schemas/) stay right.
// - validate: one CommonJS file, dist/cli/validate.cjs, with V8's code cache of a run of it on
//   examples/loja-nova, so `erpsync validate` also compiles next to nothing (see
//   src/cli/fast-start.ts). Only what validate runs is in it: the other commands, the emulator,
//   undici and ajv's compiler are reached by dynamic import, which stays outside.
/* global AbortController -- a Node.js global, as everywhere in src */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { Writable } from 'node:stream';
import { build } from 'esbuild';
import { compileValidateBundle, mainBundleFile, validateBundleFile, validateCacheFile } from '../dist/cli/fast-start.js';

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

// The chunks' names carry a hash of their content: the last build's go first.
const cliDir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
for (const file of readdirSync(cliDir)) if (file.startsWith('bundle-')) rmSync(`${cliDir}${file}`);
await build({
  entryPoints: { 'bundle-main': fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)) },
  outdir: cliDir,
  entryNames: '[name]',
  chunkNames: 'bundle-[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  external: ['ink', 'react', 'react/*', 'undici', 'pg'],
  // The CommonJS builds in the bundle (yaml's for node, ajv's helpers) require node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
});
if (!readdirSync(cliDir).includes(mainBundleFile.split('/').at(-1))) throw new Error(`the build wrote no ${mainBundleFile}`);

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const compiled = compileValidateBundle();
await compiled.main(['validate', 'examples/loja-nova'], { stdout: discard(), stderr: discard(), stdin: process.stdin, env: {}, cwd: root, signal: new AbortController().signal });
writeFileSync(validateCacheFile, compiled.script.createCachedData());
