// Module hooks that let a child `node` run erpsync straight from its TypeScript sources, as the
// pseudo-terminal test needs a real process: `.js` imports find their `.ts`/`.tsx` files, which
// TypeScript transpiles one by one (no type check; the test suite type-checks separately).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const isRelative = (specifier) => specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (!isRelative(specifier) || !specifier.endsWith('.js')) throw error;
    for (const extension of ['.ts', '.tsx']) {
      try {
        return await nextResolve(`${specifier.slice(0, -3)}${extension}`, context);
      } catch {
        // try the next extension
      }
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.tsx?$/.test(url)) return nextLoad(url, context);
  const fileName = fileURLToPath(url);
  const output = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, jsx: ts.JsxEmit.ReactJSX, verbatimModuleSyntax: true },
  });
  return { format: 'module', source: output.outputText, shortCircuit: true };
}
