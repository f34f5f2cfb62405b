// Build step, after tsc: writes ajv's standalone validation code for the manifest and config
// schemas into dist, so no command compiles a schema when it starts (see
// src/manifest/compile-validators.ts). Plain JavaScript: it runs on the compiled output.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { renderStandaloneValidators, standaloneValidatorsFile } from '../dist/manifest/compile-validators.js';

writeFileSync(fileURLToPath(new URL(`../${standaloneValidatorsFile}`, import.meta.url)), renderStandaloneValidators());
