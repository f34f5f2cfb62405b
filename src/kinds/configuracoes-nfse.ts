// NFS-e settings (/nfse/configuracoes): one object per account (a singleton), with the API's
// nested keys kept verbatim (ISS, IR, CSLLPISCOFINSDTO … so manifests read like the API docs).
// Holds the schema, the label table, the secret city-hall password, the checks on the ISS tax
// entries (one default; entries matched by CNAE + codigo.listaServico, so those must be unique),
// and the runtime adapter: one GET (the object comes unwrapped), one PUT of the whole merged
// object (204). Server ids (tax entry ids, the RPS numbering id) are not manifest fields, but the
// PUT sends each matched tax entry's live id back so the entry is updated, not re-created. The
// settings are never deleted. Export leaves out the counters the account advances and whatever
// is still blank. No other kind's quirks here.
import type { ApiClient } from '../api/client.js';
import { keyListField } from '../model/diff-fields.js';
import type { FieldTypes } from '../model/field-types.js';
import { code, comparableValue, decimal } from '../model/field-types.js';
import { ErpsyncError } from '../model/errors.js';
import { compact, executeByAction, isPlainRecord, mergeRecords, nameReadOnlyReference, readBoolean, readInteger, readNumber, referenceId } from './live-helpers.js';
import type { Coded, FieldTable, FieldTableEntry } from './shared-schema.js';
import { cnpjPattern, defineEnum, defineName, defineObject } from './shared-schema.js';
import { readPath, removePath, writePath } from '../model/paths.js';
import type { Change } from '../model/plan.js';
import type { LiveRecord } from '../model/live.js';
import type { ManifestRecord } from '../model/desired.js';
import { defineKind } from './kind.js';
import type { CheckFinding, ReadScope, WriteContext, JsonSchema } from './kind.js';

export const tipoEmissaoLabels = { todas: 'T', 'rps-e-nfse': 'R', 'somente-nfse': 'N' } as const;

export interface BasicasNfseManifest {
  emissorPadrao?: number;
  /** The operation nature by its descricao, or its id. */
  naturezaOperacao?: string | number;
}

export interface CodigoTributoManifest {
  listaServico: string;
  tributacao?: string;
}

export interface TributoNfseManifest {
  CNAE: string;
  descricaoServico: string;
  codigo: CodigoTributoManifest;
  percentualISS?: number;
  padrao?: boolean;
  indicadorOperacao?: string;
}

export interface IssNfseManifest {
  tributos: TributoNfseManifest[];
  zerar?: boolean;
  reter?: boolean;
  descontar?: boolean;
}

export interface NumeracaoRpsManifest {
  cnpjEmitente?: string;
  numero?: number;
  serie?: number;
}

export interface ControleNfseManifest {
  numeracaoRPS?: NumeracaoRpsManifest;
}

export interface TextoIrManifest {
  padrao?: string;
  isento?: string;
}

export interface IrNfseManifest {
  percentual?: number;
  valorMinimoAlternativoDescontol?: number;
  descontar?: boolean;
  texto?: TextoIrManifest;
}

export interface CsllPisCofinsManifest {
  calcular?: boolean;
  reter?: boolean;
}

export interface InssManifest {
  reter?: boolean;
}

export interface AproximadosManifest {
  utilizarAliqIBPT?: boolean;
  percentualAliq?: number;
}

export interface OutrosImpostosManifest {
  CSLLPISCOFINSDTO?: CsllPisCofinsManifest;
  INSS?: InssManifest;
  aproximados?: AproximadosManifest;
}

export interface ImpostosNfseManifest {
  bloquearRetencaoPessoaFisica?: boolean;
  IR?: IrNfseManifest;
  outros?: OutrosImpostosManifest;
}

export interface EmailPadraoManifest {
  copia?: string;
  resposta?: string;
}

export interface EnvioEmailNfseManifest {
  enviarBoletoRPS?: boolean;
  remetente?: string;
  assunto?: string;
  mensagem?: string;
  padrao?: EmailPadraoManifest;
}

export interface CadastroPrefeituraManifest {
  login?: string;
  /** Secret: only through ${VAR}. */
  senha?: string;
}

export interface AdicionaisNfseManifest {
  CFPS?: string;
  CFOP?: string;
  AEDF?: string;
  proximoNumeroLote?: number;
  observacaoImpressaNota?: string;
  descricaoComplementar?: string;
  tipoEmissao?: Coded<typeof tipoEmissaoLabels>;
  campoNumeroDocContas?: boolean;
  incentivadorFiscal?: boolean;
  alterarSituacao?: boolean;
  incluirParcelas?: boolean;
  considerarDataParcela?: boolean;
  considerarDataOrdemServico?: boolean;
  cadastroPrefeitura?: CadastroPrefeituraManifest;
}

export interface ConfiguracaoNfseManifest {
  basicas?: BasicasNfseManifest;
  ISS?: IssNfseManifest;
  controle?: ControleNfseManifest;
  impostos?: ImpostosNfseManifest;
  envioEmail?: EnvioEmailNfseManifest;
  adicionais?: AdicionaisNfseManifest;
}

const tipoEmissao = defineEnum({
  path: ['adicionais', 'tipoEmissao'],
  labels: tipoEmissaoLabels,
  summary: 'Which documents are issued: all, RPS and NFS-e, or NFS-e only (the API uses the letters T, R and N).',
});

const basicasFields = {
  emissorPadrao: { type: 'integer', minimum: 0, description: 'Default issuer setting, as the integer the API stores.' },
  naturezaOperacao: {
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'integer', minimum: 0 },
    ],
    description:
      'Operation nature (natureza de operação) used by default, by its descricao as /naturezas-operacoes lists it (e.g. `Prestação de serviço`), or by id.',
  },
} as const satisfies FieldTable<BasicasNfseManifest>;

const codigoTributoFields = {
  listaServico: defineName('Item of the federal service list (LC 116), e.g. `0107`. Required.'),
  tributacao: { type: 'string', description: "The city's own tax code for the service, when it has one." },
} as const satisfies FieldTable<CodigoTributoManifest>;

const tributoFields = {
  CNAE: defineName('Economic activity code (CNAE) of the service, e.g. `82.99`. Required.'),
  descricaoServico: defineName('Description of the service printed on the invoice. Required.'),
  codigo: defineObject(codigoTributoFields, {
    description: 'Service codes. With CNAE, codigo.listaServico identifies the tax entry.',
    required: ['listaServico'],
  }),
  percentualISS: { type: 'number', minimum: 0, maximum: 100, description: 'ISS rate in percent.' },
  padrao: {
    type: 'boolean',
    description: 'When true, new invoices start with this tax entry. At most one entry may be the default.',
  },
  indicadorOperacao: {
    type: 'string',
    minLength: 1,
    description: 'Operation indicator of the tax reform (IBS/CBS), e.g. `010101`.',
  },
} as const satisfies FieldTable<TributoNfseManifest>;

const issFields = {
  tributos: {
    type: 'array',
    items: defineObject(tributoFields, {
      description: 'An ISS tax entry, matched to the live one by CNAE and codigo.listaServico (ids are never written).',
      required: ['CNAE', 'descricaoServico', 'codigo'],
    }),
    description: 'ISS tax entries, one per service the company provides. Required when ISS is given.',
  },
  zerar: { type: 'boolean', description: 'When true, invoices carry ISS as zero.' },
  reter: { type: 'boolean', description: 'When true, ISS is withheld by the customer.' },
  descontar: { type: 'boolean', description: 'When true, withheld ISS is deducted from the amount to receive.' },
} as const satisfies FieldTable<IssNfseManifest>;

const numeracaoRpsFields = {
  cnpjEmitente: {
    type: 'string',
    pattern: cnpjPattern,
    description: 'CNPJ of the issuing company, 14 digits or formatted 00.000.000/0000-00; empty for none.',
  },
  numero: {
    type: 'integer',
    minimum: 0,
    description: 'Current RPS number. The account advances it with every RPS: declare it only to restart the numbering.',
  },
  serie: { type: 'integer', minimum: 0, description: 'RPS series.' },
} as const satisfies FieldTable<NumeracaoRpsManifest>;

const controleFields = {
  numeracaoRPS: defineObject(numeracaoRpsFields, { description: 'Numbering of RPS (provisional service receipts).' }),
} as const satisfies FieldTable<ControleNfseManifest>;

const textoIrFields = {
  padrao: { type: 'string', description: 'Text printed when income tax is withheld.' },
  isento: { type: 'string', description: 'Text printed when the invoice is exempt from income tax.' },
} as const satisfies FieldTable<TextoIrManifest>;

const irFields = {
  percentual: { type: 'number', minimum: 0, maximum: 100, description: 'Income tax (IR) withholding rate in percent.' },
  valorMinimoAlternativoDescontol: {
    type: 'number',
    minimum: 0,
    description: 'Alternative minimum amount in BRL for deducting IR (the API spells the key this way).',
  },
  descontar: { type: 'boolean', description: 'When true, the alternative minimum amount applies.' },
  texto: defineObject(textoIrFields, { description: 'Texts printed about income tax.' }),
} as const satisfies FieldTable<IrNfseManifest>;

const csllPisCofinsFields = {
  calcular: {
    type: 'boolean',
    description: 'Withhold CSLL, PIS and COFINS on invoices above R$ 5,000 (a rule discontinued by Lei 13.137).',
  },
  reter: {
    type: 'boolean',
    description: 'Withhold CSLL, PIS and COFINS when their sum exceeds R$ 10 (Lei 10.833).',
  },
} as const satisfies FieldTable<CsllPisCofinsManifest>;

const inssFields = {
  reter: { type: 'boolean', description: 'When true, INSS is withheld.' },
} as const satisfies FieldTable<InssManifest>;

const aproximadosFields = {
  utilizarAliqIBPT: {
    type: 'boolean',
    description: 'When true, approximate taxes shown on the invoice use the IBPT table rates.',
  },
  percentualAliq: {
    type: 'number',
    minimum: 0,
    maximum: 100,
    description: 'Rate in percent for approximate taxes when the IBPT table is not used.',
  },
} as const satisfies FieldTable<AproximadosManifest>;

const outrosFields = {
  CSLLPISCOFINSDTO: defineObject(csllPisCofinsFields, {
    description: 'CSLL, PIS and COFINS withholding (the API key really ends in DTO).',
  }),
  INSS: defineObject(inssFields, { description: 'INSS withholding.' }),
  aproximados: defineObject(aproximadosFields, { description: 'Approximate taxes shown to the customer.' }),
} as const satisfies FieldTable<OutrosImpostosManifest>;

const impostosFields = {
  bloquearRetencaoPessoaFisica: {
    type: 'boolean',
    description: 'When true, no tax is withheld on invoices to individuals (pessoa física).',
  },
  IR: defineObject(irFields, { description: 'Income tax (IR) withholding.' }),
  outros: defineObject(outrosFields, { description: 'Other federal taxes.' }),
} as const satisfies FieldTable<ImpostosNfseManifest>;

const emailPadraoFields = {
  copia: { type: 'string', description: 'Address that receives a copy of every invoice e-mail.' },
  resposta: { type: 'string', description: 'Reply-to address of invoice e-mails.' },
} as const satisfies FieldTable<EmailPadraoManifest>;

const envioEmailFields = {
  enviarBoletoRPS: {
    type: 'boolean',
    description: 'When true, the bank slips of the accounts posted from the RPS or contract go with the e-mail.',
  },
  remetente: { type: 'string', description: 'Sender name of invoice e-mails.' },
  assunto: { type: 'string', description: 'Subject of invoice e-mails.' },
  mensagem: { type: 'string', description: 'Body of invoice e-mails.' },
  padrao: defineObject(emailPadraoFields, { description: 'Default copy and reply-to addresses.' }),
} as const satisfies FieldTable<EnvioEmailNfseManifest>;

const cadastroPrefeituraFields = {
  login: { type: 'string', description: 'Login at the city-hall invoicing system.' },
  senha: {
    type: 'string',
    description:
      'Password at the city-hall invoicing system. Secret: write it only as a variable, e.g. `${NFSE_SENHA_PREFEITURA}`; erpsync never prints it.',
  },
} as const satisfies FieldTable<CadastroPrefeituraManifest>;

const adicionaisFields = {
  CFPS: { type: 'string', description: 'Service provision fiscal code (CFPS), where the city uses one.' },
  CFOP: { type: 'string', description: 'Fiscal operation code (CFOP), where the city asks for one.' },
  AEDF: { type: 'string', description: 'Authorization to issue electronic fiscal documents (AEDF), where the city uses one.' },
  proximoNumeroLote: {
    type: 'integer',
    minimum: 0,
    description: 'Number of the next batch sent to the city hall. The account advances it: declare it only to restart it.',
  },
  observacaoImpressaNota: { type: 'string', description: 'Note printed on the invoice only (not sent to the city hall).' },
  descricaoComplementar: {
    type: 'string',
    description: 'Text appended under the service description of every invoice.',
  },
  tipoEmissao: tipoEmissao.schema,
  campoNumeroDocContas: {
    type: 'boolean',
    description: 'When true, the RPS number becomes the document number of the accounts posted from the invoice.',
  },
  incentivadorFiscal: {
    type: 'boolean',
    description: 'Whether invoices declare the company as benefiting from a tax incentive (incentivo fiscal).',
  },
  alterarSituacao: { type: 'boolean', description: 'When true, users may change the situation of invoices by hand.' },
  incluirParcelas: {
    type: 'boolean',
    description: 'When true, the installments are listed in the service description of the invoice.',
  },
  considerarDataParcela: {
    type: 'boolean',
    description: "When true, invoice installments generated from a sale use the sale's installment due dates.",
  },
  considerarDataOrdemServico: {
    type: 'boolean',
    description: "When true, invoice installments generated from a service order use the order's due dates.",
  },
  cadastroPrefeitura: defineObject(cadastroPrefeituraFields, {
    description: 'Credentials at the city-hall invoicing system.',
  }),
} as const satisfies FieldTable<AdicionaisNfseManifest>;

const fields = {
  basicas: defineObject(basicasFields, { description: 'Basic settings.' }),
  ISS: defineObject(issFields, { description: 'ISS (municipal service tax) settings and tax entries.', required: ['tributos'] }),
  controle: defineObject(controleFields, { description: 'Document numbering.' }),
  impostos: defineObject(impostosFields, { description: 'Federal tax withholding.' }),
  envioEmail: defineObject(envioEmailFields, { description: 'E-mails sent with invoices.' }),
  adicionais: defineObject(adicionaisFields, { description: 'Additional settings and city-hall credentials.' }),
} as const satisfies FieldTable<ConfiguracaoNfseManifest>;

export const configuracaoNfseFieldTables: readonly FieldTableEntry[] = [
  { path: [], fields },
  { path: ['basicas'], fields: basicasFields },
  { path: ['ISS'], fields: issFields },
  { path: ['ISS', 'tributos', '*'], fields: tributoFields },
  { path: ['ISS', 'tributos', '*', 'codigo'], fields: codigoTributoFields },
  { path: ['controle'], fields: controleFields },
  { path: ['controle', 'numeracaoRPS'], fields: numeracaoRpsFields },
  { path: ['impostos'], fields: impostosFields },
  { path: ['impostos', 'IR'], fields: irFields },
  { path: ['impostos', 'IR', 'texto'], fields: textoIrFields },
  { path: ['impostos', 'outros'], fields: outrosFields },
  { path: ['impostos', 'outros', 'CSLLPISCOFINSDTO'], fields: csllPisCofinsFields },
  { path: ['impostos', 'outros', 'INSS'], fields: inssFields },
  { path: ['impostos', 'outros', 'aproximados'], fields: aproximadosFields },
  { path: ['envioEmail'], fields: envioEmailFields },
  { path: ['envioEmail', 'padrao'], fields: emailPadraoFields },
  { path: ['adicionais'], fields: adicionaisFields },
  { path: ['adicionais', 'cadastroPrefeitura'], fields: cadastroPrefeituraFields },
];

/** The tax entries of one settings object: one default at most, and no two with the same match key. */
export function checkConfiguracoesNfse(records: readonly ManifestRecord[]): CheckFinding[] {
  const findings: CheckFinding[] = [];
  for (const record of records) {
    const iss = record.value.ISS;
    const tributos = typeof iss === 'object' && iss !== null ? (iss as Record<string, unknown>).tributos : undefined;
    if (!Array.isArray(tributos)) continue;
    let firstDefault: number | undefined;
    const firstIndexByKey = new Map<string, number>();
    tributos.forEach((entry: unknown, index) => {
      if (typeof entry !== 'object' || entry === null) return;
      const tributo = entry as Record<string, unknown>;
      if (tributo.padrao === true) {
        if (firstDefault === undefined) firstDefault = index;
        else
          findings.push({
            severity: 'error',
            code: 'multiple-defaults',
            message: `ISS/tributos/${firstDefault} is already the default tax entry; only one may have padrao: true`,
            hint: 'set padrao: true on one tax entry only',
            record,
            path: ['ISS', 'tributos', index, 'padrao'],
          });
      }
      const key = matchKeyOf(tributo);
      if (key === undefined) return;
      const firstIndex = firstIndexByKey.get(key);
      if (firstIndex === undefined) firstIndexByKey.set(key, index);
      else
        findings.push({
          severity: 'error',
          code: 'duplicate-tax-entry',
          message: `ISS/tributos/${firstIndex} already has CNAE and codigo.listaServico ${key}; tax entries are matched by that pair`,
          hint: 'merge the two entries, or correct the CNAE or codigo.listaServico of one of them',
          record,
          path: ['ISS', 'tributos', index],
        });
    });
  }
  return findings;
}

/**
 * CNAE + listaServico, both by their digits (the codes' meaning): the service may store `82.99` as
 * `8299` or the other way round, and the entry is still the same one.
 */
function matchKeyOf(tributo: Record<string, unknown>): string | undefined {
  const cnae = tributo.CNAE;
  const codigo = tributo.codigo;
  const listaServico = typeof codigo === 'object' && codigo !== null ? (codigo as Record<string, unknown>).listaServico : undefined;
  if (typeof cnae !== 'string' || typeof listaServico !== 'string') return undefined;
  return `${String(comparableValue(code, cnae))} + ${String(comparableValue(code, listaServico))}`;
}

/** Codes by their digits; rates at 4 decimals (their precision is undocumented), amounts in BRL at cents. */
const settingsFieldTypes: FieldTypes = {
  'ISS.tributos.*.CNAE': code,
  'ISS.tributos.*.codigo.listaServico': code,
  'ISS.tributos.*.percentualISS': decimal(4),
  'ISS.tributos.*.indicadorOperacao': code,
  'controle.numeracaoRPS.cnpjEmitente': code,
  'impostos.IR.percentual': decimal(4),
  'impostos.IR.valorMinimoAlternativoDescontol': decimal(2),
  'impostos.outros.aproximados.percentualAliq': decimal(4),
  'adicionais.CFOP': code,
};


const resourcePath = '/nfse/configuracoes';

/**
 * `value` read in the shape `schema` describes: booleans and numbers taken leniently ("true",
 * "5.5"), and — unless `keepUnknown` — only the properties the manifest knows (server ids go).
 * With `keepUnknown` it is a write-side cleanup: right types, nothing dropped, server ids as
 * integers.
 */
function shapeBySchema(value: unknown, schema: JsonSchema, keepUnknown: boolean): unknown {
  const properties = schema.properties;
  if (isPlainRecord(properties)) {
    if (!isPlainRecord(value)) return undefined;
    const known = Object.entries(properties).map(([key, inner]) => [key, shapeBySchema(value[key], inner as JsonSchema, keepUnknown)] as const);
    const serverId = keepUnknown && value.id !== undefined ? { id: readInteger(value.id) ?? value.id } : {};
    return { ...(keepUnknown ? value : {}), ...serverId, ...compact(Object.fromEntries(known)) };
  }
  if (schema.type === 'array' && isPlainRecord(schema.items)) {
    if (!Array.isArray(value)) return undefined;
    const items = schema.items;
    return value.map((item) => shapeBySchema(item, items, keepUnknown)).filter((item) => item !== undefined);
  }
  switch (schema.type) {
    case 'boolean':
      return readBoolean(value);
    case 'integer':
      return readInteger(value);
    case 'number':
      return readNumber(value);
    case 'string':
      return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
    default:
      return value;
  }
}

function settingsShape(value: Record<string, unknown>, keepUnknown: boolean): Record<string, unknown> {
  return (shapeBySchema(value, configuracoesNfse.recordSchema, keepUnknown) as Record<string, unknown> | undefined) ?? {};
}

/** Where the settings name an operation nature (read-only, named by descricao). */
const naturezaPath = ['basicas', 'naturezaOperacao'];

async function readSettings(client: ApiClient, scope: ReadScope): Promise<LiveRecord[]> {
  // The client unwraps `data` when the answer has one; the spec documents it without.
  const { data } = await client.request<unknown>({ method: 'GET', path: resourcePath, kind: 'configuracoesNfse' });
  if (!isPlainRecord(data)) throw new ErpsyncError('API_ERROR', `GET ${resourcePath}: expected the settings object`);
  const cadastro = isPlainRecord(data.adicionais) ? data.adicionais.cadastroPrefeitura : undefined;
  const senha = isPlainRecord(cadastro) ? cadastro.senha : undefined;
  // The password comes back in clear: whatever error text might echo it must not show it.
  if (typeof senha === 'string' && senha !== '') client.registerSecret(senha);
  return [
    {
      kind: 'configuracoesNfse',
      // The singleton has no id of its own; 0 stands for "the one object".
      id: 0,
      identity: 'configuracoesNfse',
      name: '',
      fields: nameNatureza(settingsShape(data, false), scope),
      raw: data,
      detailLoaded: true,
    },
  ];
}

/** The operation nature by name when the natures were read (a manifest names one), else its id; 0 is none. */
function nameNatureza(fields: Record<string, unknown>, scope: ReadScope): Record<string, unknown> {
  const id = readInteger(readPath(fields, naturezaPath));
  return id === undefined || id === 0 ? fields : writePath(fields, naturezaPath, nameReadOnlyReference(scope.earlier, 'naturezasOperacoes', id));
}

/** Label of the synthetic field that lists the tax entries by match key, so removals show. */
const tributoKeysField = keyListField('tributos', 'CNAE + listaServico');

/**
 * Tax entries compared by match key instead of position: an object keyed by CNAE +
 * listaServico (so only the fields a manifest sets are compared, entry by entry) plus the sorted
 * list of keys (so an entry the manifest drops, or adds, shows as a difference). Ids go.
 */
function canonicalizeSettings(fields: Record<string, unknown>): Record<string, unknown> {
  const iss = fields.ISS;
  if (!isPlainRecord(iss) || !Array.isArray(iss.tributos)) return fields;
  const keyed = iss.tributos.filter(isPlainRecord).map((entry) => {
    const { id: _id, ...rest } = entry;
    return [matchKeyOf(entry) ?? '', rest] as const;
  });
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { ...fields, ISS: { ...iss, tributos: Object.fromEntries(keyed), [tributoKeysField]: keyed.map(([key]) => key) } };
}

/**
 * The declared tax entries as the PUT sends them: each on top of the live entry with the same
 * match key (its id included, so the API updates it). Entries the manifest leaves out are not
 * sent, so the API drops them. One default at most: declaring one clears the others.
 */
function mergeTributos(live: unknown, desired: readonly unknown[]): Record<string, unknown>[] {
  const liveByKey = new Map(
    (Array.isArray(live) ? live : []).filter(isPlainRecord).map((entry) => [matchKeyOf(entry), entry] as const),
  );
  const entries = desired.filter(isPlainRecord);
  const declaresDefault = entries.some((entry) => entry.padrao === true);
  return entries.map((entry) => {
    const current = liveByKey.get(matchKeyOf(entry));
    const merged = current ? mergeRecords(current, entry) : entry;
    return declaresDefault && entry.padrao !== true ? { ...merged, padrao: false } : merged;
  });
}

/** The whole object the PUT replaces the settings with: as read, the manifest on top. */
function buildSettingsBody(raw: Record<string, unknown>, desired: Record<string, unknown>): Record<string, unknown> {
  const base = settingsShape(raw, true);
  const merged = mergeRecords(base, desired);
  const desiredIss = desired.ISS;
  if (isPlainRecord(desiredIss) && Array.isArray(desiredIss.tributos)) {
    const liveIss = isPlainRecord(base.ISS) ? base.ISS : {};
    merged.ISS = { ...(merged.ISS as Record<string, unknown>), tributos: mergeTributos(liveIss.tributos, desiredIss.tributos) };
  }
  return merged;
}

/** The PUT both creates and changes the settings; they are never deleted. */
async function putSettings(change: Change, context: WriteContext): Promise<void> {
  const desired = change.desired ?? {};
  // The new password travels in this request: whatever the service says back must not show it.
  const senha = readPath(desired, ['adicionais', 'cadastroPrefeitura', 'senha']);
  if (typeof senha === 'string' && senha !== '') context.client.registerSecret(senha);
  const natureza = readPath(desired, naturezaPath);
  const withIds = natureza === undefined ? desired : writePath(desired, naturezaPath, referenceId(context, 'naturezasOperacoes', natureza));
  const body = buildSettingsBody(context.live?.raw ?? {}, withIds);
  await context.client.request({ method: 'PUT', path: resourcePath, body, kind: 'configuracoesNfse' });
}

const executeSettings = executeByAction('NFS-e settings', { create: putSettings, update: putSettings });

/** Counters the account advances with every invoice: a manifest that held them would drift daily. */
const counterPaths: readonly (readonly string[])[] = [
  ['controle', 'numeracaoRPS', 'numero'],
  ['adicionais', 'proximoNumeroLote'],
];


/**
 * Unset-looking values (false, 0, '') are what the settings hold until someone fills them in,
 * so they go, and so do sections left empty. Tax entries keep their required members.
 */
function withoutBlankValues(value: unknown, keep: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutBlankValues(item, tributoRequired)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (!isPlainRecord(value)) return value === false || value === 0 || value === '' ? undefined : value;
  const kept = Object.entries(value).flatMap(([key, inner]) => {
    const cleaned = withoutBlankValues(inner, key === 'codigo' ? codigoRequired : new Set());
    const empty = cleaned === undefined || (isPlainRecord(cleaned) && Object.keys(cleaned).length === 0);
    return empty && !keep.has(key) ? [] : [[key, cleaned ?? inner] as const];
  });
  return Object.fromEntries(kept);
}

const tributoRequired: ReadonlySet<string> = new Set(['CNAE', 'descricaoServico', 'codigo']);
const codigoRequired: ReadonlySet<string> = new Set(['listaServico']);

/** The settings as a manifest declares them: no counters, nothing left at its blank default. */
function exportSettings(record: LiveRecord): Record<string, unknown> {
  const withoutCounters = counterPaths.reduce(removePath, record.fields);
  const cleaned = withoutBlankValues(withoutCounters) as Record<string, unknown>;
  const iss = cleaned.ISS;
  // ISS needs its tax entries whenever the section is written at all.
  return isPlainRecord(iss) ? { ...cleaned, ISS: { ...iss, tributos: Array.isArray(iss.tributos) ? iss.tributos : [] } } : cleaned;
}

export const configuracoesNfse = defineKind({
  key: 'configuracoesNfse',
  title: 'NFS-e settings',
  resource: '/nfse/configuracoes',
  shape: 'singleton',
  recordSchema: {
    title: 'NFS-e settings',
    ...defineObject(fields, {
      description:
        'Service invoice (NFS-e) settings of the account: one object, keys as the API names them. Sections left out are not changed.',
    }),
  },
  enums: [tipoEmissao.field],
  secretFields: [['adicionais', 'cadastroPrefeitura', 'senha']],
  references: [{ path: naturezaPath, target: 'naturezasOperacoes', parent: false }],
  checkRecords: checkConfiguracoesNfse,
  readLive: readSettings,
  canonicalize: canonicalizeSettings,
  fieldTypes: settingsFieldTypes,
  retire: 'none',
  canDelete: false,
  exportFields: exportSettings,
  secretVariables: { 'adicionais.cadastroPrefeitura.senha': 'NFSE_SENHA_PREFEITURA' },
  execute: executeSettings,
});
