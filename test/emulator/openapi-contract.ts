// Test support: checks a response against the official OpenAPI document (the two cuts kept in
// test/fixtures/reference; see the README there) — status named by the operation, body valid
// against that status's schema — and records which operation/status pairs were exercised.
//
// The document is used as published, with four corrections for defects it is known to have
// (api-facts.md §2.4, §2.9, §7.6, and an undeclared required member); each is explained where it is made.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import type { CallResult } from './http-client.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, { enum?: number[] }> }> };
}

const documentUrls = ['openapi-config-subset.json', 'openapi-more-config.json'].map(
  (name) => new URL(`../fixtures/reference/${name}`, import.meta.url),
);

/** The two cuts of one document: their paths are disjoint and their shared schemas identical. */
function mergeDocuments(docs: OpenApiDocument[]): OpenApiDocument {
  const merged: OpenApiDocument = { paths: {}, components: { schemas: {} } };
  for (const doc of docs) {
    Object.assign(merged.paths, doc.paths);
    Object.assign(merged.components.schemas, doc.components.schemas);
  }
  return merged;
}

function loadDocument(): OpenApiDocument {
  const doc = mergeDocuments(documentUrls.map((url) => JSON.parse(readFileSync(url, 'utf8')) as OpenApiDocument));
  const schemas = doc.components.schemas;
  // 1. ErrorResponse lists `["error.type","message","description"]` as required members of the
  //    wrapper itself, which no body can satisfy; the members live inside `error` (and Error
  //    requires them there).
  const errorResponse = schemas.ErrorResponse;
  if (errorResponse) errorResponse.required = ['error'];
  // 2. Income/expense categories of tipo 4 and 5 (system transfer categories) exist in every
  //    real account's list although the enum stops at 3.
  const tipo = schemas.CategoriasReceitasDespesasDadosBaseDTO?.properties?.tipo;
  if (tipo?.enum) tipo.enum = [...tipo.enum, 4, 5];
  // 3. The product-group detail is a oneOf of two schemas that a real record ({id, nome}) both
  //    matches, so oneOf can never pass; it is read as anyOf.
  const groupDetail = doc.paths['/grupos-produtos/{idGrupoProduto}']?.get?.responses['200']?.content?.['application/json']
    ?.schema as { properties: { data: Record<string, unknown> } } | undefined;
  if (groupDetail) {
    const { oneOf, ...rest } = groupDetail.properties.data;
    groupDetail.properties.data = { ...rest, anyOf: oneOf };
  }
  // 4. A custom field's grouping entry requires `agrupador` but declares only `id`; the member's
  //    type is not given, so it is not required here (the emulator answers `{id}` as written).
  const agrupador = schemas.CamposCustomizadosAgrupadorDTO;
  if (agrupador) agrupador.required = ['id'];
  return doc;
}

export const openApi = loadDocument();
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, logger: false });
ajv.addSchema(openApi as object, 'openapi');

function pointer(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.getSchema(`openapi#/${ref}`);
    if (!validate) throw new Error(`no schema at ${ref}`);
    validators.set(ref, validate);
  }
  return validate;
}

/** Operation/status pairs seen, as `METHOD template status`. */
export const exercised = new Set<string>();

/** How many responses were checked against the document. */
export const checkedResponses = { count: 0 };

/**
 * Statuses an operation may answer beyond the ones it names, each for a documented reason:
 * - 404 on an operation addressing a record by id (service interface, errors rule 1), where the
 *   spec forgot to list it (PUT /logisticas/{id}, PUT /situacoes/{id});
 * - 400 on a creation, update, deletion or action that rejects the request (rule 2), e.g. a
 *   bulk delete without its required id list, where the spec lists only its successes;
 * - 400 on listings whose spec names no error, for filter values outside their enums.
 */
function allowedExtra(method: string, template: string, status: number): boolean {
  if (status === 404) return /\{\w+\}/.test(template);
  if (status === 400) return method !== 'GET' || !/\{\w+\}$/.test(template);
  return false;
}

/** Asserts that `res` is what the spec says `METHOD template` answers, and records it. */
export function expectContract(method: string, template: string, res: CallResult): void {
  const operation = openApi.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template} is not in the spec`).toBeDefined();
  const status = String(res.status);
  const response = operation?.responses[status];
  const label = `${method} ${template} → ${status}`;
  exercised.add(`${method} ${template} ${status}`);
  checkedResponses.count += 1;
  if (!response) {
    expect(allowedExtra(method, template, res.status), `${label} is not named by the spec`).toBe(true);
    const validate = validatorFor(pointer('components', 'schemas', 'ErrorResponse'));
    expect(validate(res.json), `${label}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    return;
  }
  if (!response.content?.['application/json']?.schema) {
    expect(res.text, `${label} must have no body`).toBe('');
    return;
  }
  const validate = validatorFor(pointer('paths', template, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema'));
  expect(validate(res.json), `${label}: ${ajv.errorsText(validate.errors)} in ${res.text.slice(0, 400)}`).toBe(true);
}
