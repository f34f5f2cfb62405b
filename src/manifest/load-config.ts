// erpsync.config.yaml, checked like a manifest: parsed keeping positions, validated against
// schemas/config.schema.json, every problem a diagnostic with file:line:col, all at once. The schema
// is the config's only validator; this file adds the one rule a schema cannot say (plain http only
// to a loopback host) in the same pass, then maps the checked value to the targets erpsync resolves
// (src/target/resolve-target.ts decides what they mean).
import { defaultSandboxState, normalizeBaseUrl, parseSecureUrl, targetGlob } from '../api/index.js';
import type { BackendDocument, ConcurrencyConfig, RolloutConfig, TargetConfig, TargetsConfig } from '../api/index.js';
import type { JsonSchema } from '../kinds/kind.js';
import type { Locator, PathSegment } from '../model/desired.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { compareDiagnostics, hasErrors } from '../model/diagnostics.js';
import { isErpsyncError } from '../model/errors.js';
import { isPlainRecord, toPointer } from '../model/paths.js';
import { configSchema, urlPattern } from './config-schema.js';
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
  diagnostics.push(...[...diagnosticsOf(configValidator, doc.value, doc.locate), ...urlDiagnostics(doc.value, doc.locate), ...ownerGroupDiagnostics(doc.value, doc.locate)].sort(compareDiagnostics));
  return hasErrors(diagnostics) ? { diagnostics } : { value: doc.value, locate: doc.locate, diagnostics };
}

/**
 * Reads erpsync.config.yaml: its diagnostics, and the targets when it has no error. `dir` is the
 * config file's folder (relative paths inside the file are relative to it).
 */
export function readTargetsConfig(shown: string, bytes: Uint8Array, dir: string): { config?: TargetsConfig; diagnostics: Diagnostic[] } {
  const checked = checkConfigText(shown, bytes);
  if (hasErrors(checked.diagnostics)) return { diagnostics: checked.diagnostics };
  return { config: toTargetsConfig(checked.value as ConfigDocument | null, dir), diagnostics: checked.diagnostics };
}

/** A config the schema accepted (config-schema.ts), as TypeScript sees it. */
export interface ConfigDocument {
  version?: 1;
  targets?: Record<string, TargetDocument>;
  rollouts?: Record<string, RolloutConfig>;
  owners?: Record<string, string[]>;
  backend?: BackendDocument;
  egress?: string;
  concurrency?: ConcurrencyConfig;
}

type TargetDocument = Omit<TargetConfig, 'manifests' | 'variables' | 'sandbox'> & {
  manifests?: string | string[];
  variables?: Record<string, string | number | boolean>;
  sandbox?: boolean | { state?: string };
};

/** The checked value as targets: a plain mapping, since the schema refused everything else. */
export function toTargetsConfig(value: ConfigDocument | null, dir: string): TargetsConfig {
  const targets = Object.entries(value?.targets ?? {}).map(([name, entry]): [string, TargetConfig] => [name, toTargetConfig(name, entry)]);
  return {
    dir,
    targets: Object.fromEntries(targets),
    ...(value?.rollouts ? { rollouts: value.rollouts } : {}),
    ...(value?.owners ? { owners: value.owners } : {}),
    ...(value?.backend !== undefined ? { backend: value.backend } : {}),
    ...(value?.egress !== undefined ? { egress: value.egress } : {}),
    ...(value?.concurrency !== undefined ? { concurrency: value.concurrency } : {}),
  };
}

function toTargetConfig(name: string, { baseUrl, manifests, variables, sandbox, ...same }: TargetDocument): TargetConfig {
  return {
    ...same,
    ...(baseUrl !== undefined ? { baseUrl: normalizeBaseUrl(baseUrl) } : {}),
    ...(manifests !== undefined ? { manifests: typeof manifests === 'string' ? [manifests] : manifests } : {}),
    ...(variables !== undefined ? { variables: Object.fromEntries(Object.entries(variables).map(([key, v]) => [key, String(v)])) } : {}),
    ...(sandbox !== undefined && sandbox !== false ? { sandbox: { state: (sandbox === true ? undefined : sandbox.state) ?? defaultSandboxState(name) } } : {}),
  };
}

/** An owners group whose glob matches no target would notify nobody: a typo, or a group left behind. */
function ownerGroupDiagnostics(value: unknown, locate: Locator): Diagnostic[] {
  // Checked beside the schema, so every problem shows at once: only mappings are looked into.
  if (!isPlainRecord(value) || !isPlainRecord(value.owners)) return [];
  const names = isPlainRecord(value.targets) ? Object.keys(value.targets) : [];
  return Object.keys(value.owners)
    .filter((glob) => !names.some((name) => targetGlob(glob).test(name)))
    .map((glob) => ({
      severity: 'error',
      code: 'unknown-group',
      message: `the owners group \`${glob}\` matches no target`,
      hint: names.length > 0 ? `target names: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ' …' : ''}` : 'the config has no targets',
      path: toPointer(['owners', glob]),
      position: locate(['owners', glob]),
    }));
}

/**
 * What a schema cannot say about a URL field (any field of `urlPattern`'s form): credentials travel
 * over plain http only to a loopback host, and a URL embeds no user or password. The value is
 * walked along the schema, so a new URL field is checked without being named here.
 */
function urlDiagnostics(value: unknown, locate: Locator): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const walk = (node: unknown, schema: JsonSchema | undefined, path: PathSegment[]): void => {
    const resolved = resolveRef(schema);
    if (!resolved) return;
    if (typeof node === 'string' && resolved.pattern === urlPattern && new RegExp(urlPattern).test(node)) {
      const problem = insecureUrl(node, path);
      if (problem) diagnostics.push({ ...problem, path: toPointer(path), position: locate(path) });
    }
    if (!isPlainRecord(node)) return;
    const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
    const others = typeof resolved.additionalProperties === 'object' ? (resolved.additionalProperties as JsonSchema) : undefined;
    for (const [key, child] of Object.entries(node)) walk(child, Object.hasOwn(properties, key) ? properties[key] : others, [...path, key]);
  };
  walk(value, configSchema, []);
  return diagnostics;
}

function resolveRef(schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return schema;
  const defs = (configSchema.$defs ?? {}) as Record<string, JsonSchema>;
  return defs[ref.replace('#/$defs/', '')];
}

function insecureUrl(raw: string, path: readonly PathSegment[]): Pick<Diagnostic, 'severity' | 'code' | 'message' | 'hint'> | undefined {
  try {
    parseSecureUrl(raw, `\`${String(path[path.length - 1])}\``);
    return undefined;
  } catch (error) {
    if (!isErpsyncError(error)) throw error;
    const hint = error.details[0];
    return { severity: 'error', code: error.code === 'INSECURE_URL' ? 'insecure-url' : 'invalid-value', message: error.message, ...(hint !== undefined ? { hint } : {}) };
  }
}
