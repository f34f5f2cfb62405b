// The types of the module the build generates (dist/manifest/standalone-validators.js, from
// compile-validators.ts), imported as `#standalone-validators` (package.json "imports").
import type { ErrorObject } from 'ajv';

/** A compiled schema: true when the value matches; otherwise `errors` lists every problem. */
export interface SchemaValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The manifest schema of the registry's kinds. */
export declare const manifest: SchemaValidator;
/** The schema of erpsync.config.yaml. */
export declare const config: SchemaValidator;
/** The schema of one journal line (model/journal-schema). */
export declare const journalLine: SchemaValidator;
