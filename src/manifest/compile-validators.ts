// ajv's schema compiler, kept out of every command's start-up. The build renders the registry's
// manifest schema, the config schema and the journal's line schema into standalone validation code with it
// (scripts/generate-validators.js writes dist/manifest/standalone-validators.js); at run time it
// is loaded only to compile the schema of a list of kinds the build did not know (a test's own).
import { Ajv } from 'ajv';
import type { Options } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import type { KindDefinition } from '../kinds/kind.js';
import { configSchema } from './config-schema.js';
import { journalLineSchema } from '../model/journal-schema.js';
import { buildManifestSchema } from './manifest-schema.js';
import type { SchemaValidator } from '#standalone-validators';

/** Every problem at once, strict schemas, and the schema and data in each error (messages quote them); a journal line's `type` picks its branch. */
const options: Options = { allErrors: true, strict: true, verbose: true, allowUnionTypes: true, discriminator: true };

/** Where the build writes the generated module, relative to the package root. */
export const standaloneValidatorsFile = 'dist/manifest/standalone-validators.js';

export function compileManifestValidator(kinds: readonly KindDefinition[]): SchemaValidator {
  return new Ajv(options).compile(buildManifestSchema(kinds));
}

/** ajv's runtime helpers the generated code calls, as `require("ajv/dist/runtime/<name>").default`. */
const runtimeHelpers = ['equal', 'ucs2length', 'uri', 'validation_error'];

/**
 * The source of the generated module: `manifest` (the registry's kinds), `config` and `journalLine`, as ES module
 * exports. ajv's ES module output still calls require() for its runtime helpers (ajv issue #2209);
 * each becomes a static import, which the validate bundle takes in (a require would be resolved
 * in node_modules at run time) and which fails the build if ajv renames a helper.
 */
export function renderStandaloneValidators(): string {
  const ajv = new Ajv({ ...options, code: { source: true, esm: true } });
  ajv.addSchema(buildManifestSchema(), 'manifest');
  ajv.addSchema(configSchema, 'config');
  ajv.addSchema(journalLineSchema, 'journalLine');
  let code = standalone.default(ajv, { manifest: 'manifest', config: 'config', journalLine: 'journalLine' });
  const imports = runtimeHelpers.flatMap((name) => {
    const call = `require("ajv/dist/runtime/${name}").default`;
    if (!code.includes(call)) return [];
    code = code.replaceAll(call, `runtime_${name}`);
    // Node makes a CommonJS module's exports its default import, vitest its `default` export.
    return [`import runtime_${name}_module from 'ajv/dist/runtime/${name}.js';`, `const runtime_${name} = runtime_${name}_module.default ?? runtime_${name}_module;`];
  });
  if (/require\("ajv\//.test(code)) throw new Error('the standalone validators call a runtime helper of ajv that renderStandaloneValidators does not import');
  return ['// Generated at build time by scripts/generate-validators.js from src/manifest (ajv standalone code). Do not edit.', ...imports, code, ''].join('\n');
}
