// erpsync.config.yaml, checked like a manifest: parsed keeping positions, validated against
// schemas/config.schema.json, every problem a diagnostic with file:line:col, all at once. What the
// targets mean is decided elsewhere (src/api/targets.ts); this file only says whether the text is
// a well-formed config, and gives back the value and a locator for later positioned messages.
import type { Locator } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { hasErrors } from '../model/diagnostics.js';
import { parseYamlFile } from './parse-yaml.js';
import { configValidator, diagnosticsOf } from './validate-schema.js';

export interface CheckedConfig {
  /** Present when no diagnostic is an error. */
  value?: unknown;
  locate?: Locator;
  diagnostics: Diagnostic[];
}

export function checkConfigText(shown: string, bytes: Uint8Array): CheckedConfig {
  const parsed = parseYamlFile(shown, bytes);
  const diagnostics = [...parsed.diagnostics, ...parsed.documents.flatMap((d) => d.problems)];
  const documents = parsed.documents.filter((d) => !d.empty);
  const [doc, extra] = documents;
  if (extra) diagnostics.push({ severity: 'error', code: 'multiple-documents', message: 'the config file holds more than one YAML document', position: extra.locate([]) });
  if (hasErrors(diagnostics)) return { diagnostics };
  if (!doc) return { value: null, diagnostics };
  diagnostics.push(...diagnosticsOf(configValidator, doc.value, doc.locate));
  return hasErrors(diagnostics) ? { diagnostics } : { value: doc.value, locate: doc.locate, diagnostics };
}
