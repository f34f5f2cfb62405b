// Custom logistics (/logisticas) with their services (/logisticas/servicos) nested in the same
// record: the manifest record, its schema and label table, and the check that service codes are
// unique within a logistics. Identity is `descricao`; a service is identified by its `codigo`
// within its logistics. Services cannot be deleted through the API, only deactivated, so a
// service tombstone means `ativo: false`. No API calls here yet; no other kind's quirks.
import type { CheckFinding, KindDefinition, ManifestRecord } from './kind.js';
import type { Coded, EnsureValue, FieldTable, FieldTableEntry, ToolKeys } from './shared-schema.js';
import { defineEnum, defineListRecord, defineName, defineObject, toolKeyFields } from './shared-schema.js';

export const situacaoLogisticaLabels = { habilitada: 'H', desabilitada: 'D' } as const;

export interface TransportadorManifest {
  id: number;
}

export interface ServicoLogisticaManifest {
  id?: number;
  ensure?: EnsureValue;
  codigo: string;
  /** Required unless `ensure: absent` (so are freteItem and estimativaEntrega). */
  descricao?: string;
  freteItem?: number;
  estimativaEntrega?: number;
  aliases?: string[];
  ativo?: boolean;
  idCodigoServico?: string;
  transportador?: TransportadorManifest;
}

export interface LogisticaManifest extends ToolKeys {
  descricao: string;
  /** Required unless `ensure: absent`. */
  situacao?: Coded<typeof situacaoLogisticaLabels>;
  servicos?: ServicoLogisticaManifest[];
}

const situacao = defineEnum({
  path: ['situacao'],
  labels: situacaoLogisticaLabels,
  summary: 'Whether the logistics is enabled for orders (the API uses the letters H and D here). Required unless ensure is absent.',
});

const transportadorFields = {
  id: {
    type: 'integer',
    minimum: 1,
    description: 'Id of the carrier contact in the account. Contacts are not managed by erpsync, so this stays an id.',
  },
} as const satisfies FieldTable<TransportadorManifest>;

const servicoFields = {
  id: {
    type: 'integer',
    minimum: 1,
    description: 'Tool key. Id of the live service this entry manages, to pin it when its codigo changed outside erpsync.',
  },
  ensure: {
    enum: ['present', 'absent'],
    description:
      'Tool key. `absent` deactivates the service (ativo false): the API has no way to delete a logistics service.',
  },
  codigo: defineName('Service code; identifies the service within its logistics and must be unique there. Required.'),
  descricao: defineName('Name of the service as shown on orders and labels. Required unless ensure is absent.'),
  freteItem: {
    type: 'number',
    minimum: 0,
    description: 'Freight in BRL charged for each item of an order. Required unless ensure is absent.',
  },
  estimativaEntrega: {
    type: 'integer',
    minimum: 0,
    description: 'Delivery estimate in business days. Required unless ensure is absent.',
  },
  aliases: {
    type: 'array',
    items: { type: 'string', minLength: 1 },
    uniqueItems: true,
    description: 'Other names marketplaces and integrations use for this service. An empty list when omitted on creation.',
  },
  ativo: { type: 'boolean', description: 'Whether the service is active. Inactive services are hidden from new orders.' },
  idCodigoServico: {
    type: 'string',
    minLength: 1,
    description: 'Id of the service code in the carrier integration (a string in the API, even when it looks numeric).',
  },
  transportador: defineObject(transportadorFields, {
    description: 'Carrier of the service, by contact id.',
    required: ['id'],
  }),
} as const satisfies FieldTable<ServicoLogisticaManifest>;

const servicoSchema = defineListRecord(servicoFields, {
  title: 'Logistics service',
  description: 'A service of the logistics, identified by codigo.',
  identity: ['codigo'],
  requiredUnlessAbsent: ['descricao', 'freteItem', 'estimativaEntrega'],
});

const fields = {
  descricao: defineName('Name of the logistics; identifies the record. Required.'),
  situacao: situacao.schema,
  servicos: {
    type: 'array',
    items: servicoSchema,
    description:
      'Services of this logistics. Services the manifest leaves out are left alone; a service is retired with `ensure: absent` or `ativo: false`.',
  },
  ...toolKeyFields,
} as const satisfies FieldTable<LogisticaManifest>;

export const logisticaFieldTables: readonly FieldTableEntry[] = [
  { path: [], fields },
  { path: ['servicos', '*'], fields: servicoFields },
  { path: ['servicos', '*', 'transportador'], fields: transportadorFields },
];

/** A service code must name one service of its logistics: it is how services are matched. */
export function checkLogisticas(records: readonly ManifestRecord[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  for (const record of records) {
    const services = record.value.servicos;
    if (!Array.isArray(services)) continue;
    const firstIndexByCode = new Map<string, number>();
    services.forEach((service: unknown, index) => {
      const code = typeof service === 'object' && service !== null ? (service as Record<string, unknown>).codigo : undefined;
      if (typeof code !== 'string') return;
      const normalized = code.normalize('NFC').trim();
      const firstIndex = firstIndexByCode.get(normalized);
      if (firstIndex === undefined) {
        firstIndexByCode.set(normalized, index);
        return;
      }
      findings.push({
        severity: 'error',
        code: 'duplicate-service-code',
        message: `service codigo "${normalized}" is already used by servicos/${firstIndex} of this logistics`,
        hint: 'give each service of a logistics its own codigo, or merge the two entries',
        record,
        path: ['servicos', index, 'codigo'],
      });
    });
  }
  return findings;
}

export const logisticas: KindDefinition = {
  key: 'logisticas',
  title: 'logistics',
  resource: '/logisticas',
  shape: 'list',
  recordSchema: defineListRecord(fields, {
    title: 'Logistics',
    description:
      'A custom logistics (logística personalizada) with its services, identified by descricao. Integrated carriers are not managed.',
    identity: ['descricao'],
    requiredUnlessAbsent: ['situacao'],
  }),
  enums: [situacao.field],
  secretFields: [],
  nameField: 'descricao',
  references: [],
  checkRecords: checkLogisticas,
};
