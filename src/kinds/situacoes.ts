// Custom situations (/situacoes): the manifest record and its schema. Identity is the module's
// name (`modulo`, e.g. `Vendas`) plus `nome`; the base situation whose behaviour a custom one
// inherits is named by `herdado` (the API's `idHerdado`). Built-in situations of a fresh account
// are not declared here. No API calls here yet; no other kind's quirks.
import type { KindDefinition } from './kind.js';
import type { FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineListRecord, defineName, toolKeyFields } from './shared-schema.js';

export interface SituacaoManifest extends ToolKeys {
  modulo: string;
  nome: string;
  /** Required unless `ensure: absent`. */
  herdado?: string;
  cor?: string;
}

const fields = {
  modulo: defineName(
    'Name of the module the situation belongs to, as /situacoes/modulos lists it (e.g. `Vendas`). Only modules that allow custom situations accept new ones. Required.',
  ),
  nome: defineName('Name of the situation; unique within its module and, with modulo, its identity. Required.'),
  herdado: defineName(
    'Name of the built-in situation of the same module whose behaviour this one inherits (e.g. `Em aberto`, `Em andamento`, `Atendido`). Written to the API as idHerdado. Required unless ensure is absent.',
  ),
  cor: {
    type: 'string',
    pattern: '^#[0-9A-Fa-f]{6}$',
    description: 'Colour shown for the situation, `#RRGGBB`. Compared without regard to case, since the API changes it.',
  },
  ...toolKeyFields,
} as const satisfies FieldTable<SituacaoManifest>;

export const situacaoFieldTables: readonly FieldTableEntry[] = [{ path: [], fields }];

export const situacoes: KindDefinition = {
  key: 'situacoes',
  title: 'situations',
  resource: '/situacoes',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Situation',
    description: 'A custom situation (situação) of a module, identified by modulo and nome.',
    identity: ['modulo', 'nome'],
    requiredUnlessAbsent: ['herdado'],
  }),
  enums: [],
  secretFields: [],
  nameField: 'nome',
  scopeField: 'modulo',
  references: [{ path: ['herdado'], target: 'situacoes', parent: false }],
};
