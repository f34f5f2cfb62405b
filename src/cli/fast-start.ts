// How the CLI loads its code. Every command but validate runs from the build's ES module bundle
// (dist/cli/bundle-main.js and its chunks: a few files instead of a hundred modules to resolve and
// read), or from the modules tsc built when there is none.
//
// `erpsync validate` runs in editors, hooks and CI on every save, so it must start about as fast
// as node itself. The build bundles main with the validate command into one CommonJS file
// (dist/cli/validate.cjs: no module resolution, one file read) and records V8's code cache of a
// validate run beside it (validate.cjs.cache: most functions need no compiling). Node 20 can use
// a code cache only for scripts, hence CommonJS run through node:vm. Without the bundle (the
// modules built by tsc alone) or with a cache of another node version, it still runs, slower.
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type { RunIO } from '../model/run-io.js';

/** main() of main.ts, typed here so loading it stays a run-time step (nothing imports main statically). */
export type Main = (argv: string[], io: RunIO) => Promise<number>;

/** Where the build writes the bundle of every command (beside this file in dist/cli). */
export const mainBundleFile = fileURLToPath(new URL('./bundle-main.js', import.meta.url));

/** main from the bundle of every command, or from the modules when the build made no bundle. */
export async function loadMain(): Promise<Main> {
  const source = existsSync(mainBundleFile) ? './bundle-main.js' : './main.js';
  return ((await import(source)) as { main: Main }).main;
}

/** Where the build writes validate's bundle and its code cache (beside this file in dist/cli). */
export const validateBundleFile = fileURLToPath(new URL('./validate.cjs', import.meta.url));
export const validateCacheFile = `${validateBundleFile}.cache`;

export interface CompiledBundle {
  script: Script;
  main: Main;
}

/** Compiles and evaluates the bundle (with a code cache when given); undefined when the build made none. */
export function compileValidateBundle(cachedData?: Buffer): CompiledBundle | undefined {
  let source: string;
  try {
    source = readFileSync(validateBundleFile, 'utf8');
  } catch {
    return undefined;
  }
  // V8 refuses a cache of another node version by itself (cachedDataRejected): it then compiles.
  const script = new Script(Module.wrap(source), { filename: validateBundleFile, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as { main: Main } };
  const evaluate = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  evaluate(module.exports, createRequire(validateBundleFile), module, validateBundleFile, dirname(validateBundleFile));
  return { script, main: module.exports.main };
}

/** main as the validate bundle has it, or undefined when the build made no bundle. */
export function loadValidateBundle(): Main | undefined {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(validateCacheFile);
  } catch {
    cachedData = undefined;
  }
  return compileValidateBundle(cachedData)?.main;
}
