// The contract every kind adapter fulfils. One file per kind implements it; registry.ts lists them.
// Kind quirks (identity rules, enum labels, secret fields, cross-record checks, and later reading
// and writing the API) live in the kind's own file and nowhere else.
import type { Severity } from '../model/diagnostics.js';

export type KindKey =
  | 'formasPagamentos'
  | 'categoriasReceitasDespesas'
  | 'categoriasProdutos'
  | 'gruposProdutos'
  | 'situacoes'
  | 'logisticas'
  | 'configuracoesNfse';

/** A JSON Schema (draft 2020-12 subset that ajv strict mode accepts). */
export type JsonSchema = { [key: string]: unknown };

/** Readable label → API code. Labels are lower-case kebab-case Portuguese without accents. */
export type LabelTable = Readonly<Record<string, number | string>>;

/**
 * An enumerated field: where it sits inside one record, and its label table.
 * `path` segments are property names; `*` stands for every item of an array.
 */
export interface EnumField {
  path: readonly string[];
  labels: LabelTable;
  /** Codes the API returns on read but never accepts on write (shown by export, refused in manifests). */
  readOnlyCodes?: readonly (number | string)[];
}

/** A field that names another record instead of holding its id. */
export interface ReferenceField {
  /** Property path inside the record, e.g. ['categoriaPai'] or ['herdado']. */
  path: readonly string[];
  /** The kind whose identity the value names. */
  target: KindKey;
  /** true when the reference points at a parent of the same kind (tree kinds; cycles are checked). */
  parent: boolean;
}

/** A record as it sits in the manifests after ${VAR} interpolation, before label normalization. */
export interface ManifestRecord {
  kind: KindKey;
  /** The record's value (tool keys included). */
  value: Record<string, unknown>;
  /** JSON pointer of the record inside its file, e.g. `/formasPagamentos/3`. */
  pointer: string;
  file: string;
  /** Paths (segment arrays relative to the record) whose value came from a ${VAR}. */
  interpolatedPaths: readonly (readonly (string | number)[])[];
}

export interface CheckFinding {
  severity: Severity;
  code: string;
  message: string;
  hint?: string;
  record: ManifestRecord;
  /** Path inside the record that the finding points at; the record itself when absent. */
  path?: readonly (string | number)[];
}

export interface KindDefinition {
  key: KindKey;
  /** Human name used in output, e.g. "payment methods". */
  title: string;
  /** API resource path, e.g. `/formas-pagamentos`. */
  resource: string;
  /** `list` kinds are arrays of records; a `singleton` is one object (NFS-e settings). */
  shape: 'list' | 'singleton';
  /** JSON Schema of one record (list kinds) or of the object (singleton), tool keys included. */
  recordSchema: JsonSchema;
  enums: readonly EnumField[];
  /** Paths that hold secrets: accepted only through ${VAR}, never printed. */
  secretFields: readonly (readonly string[])[];
  /** The field that names a record (`descricao` or `nome`); absent for singletons. */
  nameField?: string;
  references: readonly ReferenceField[];
  /**
   * A field that scopes the name, e.g. `modulo` for situations (identity = modulo + nome).
   * Tree kinds are scoped by their parent path instead, computed from the parent reference.
   */
  scopeField?: string;
  /** Cross-record checks a schema can't express (dadosCartao only for cards, one default, …). */
  checkRecords?(records: readonly ManifestRecord[]): CheckFinding[];
}
