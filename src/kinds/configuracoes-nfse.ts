// NFS-e settings (/nfse/configuracoes): one object per account (a singleton), with the API's
// nested keys kept verbatim (ISS, IR, CSLLPISCOFINSDTO … so manifests read like the API docs).
// Holds the schema, the label table, the secret city-hall password, and the checks on the ISS
// tax entries (one default; entries matched by CNAE + codigo.listaServico, so those must be
// unique). Server ids (tax entry ids, the RPS numbering id) are not manifest fields. No API calls
// here yet; no other kind's quirks.
import type { CheckFinding, KindDefinition, ManifestRecord } from './kind.js';
import type { Coded, FieldTable, FieldTableEntry } from './shared-schema.js';
import { cnpjPattern, defineEnum, defineName, defineObject } from './shared-schema.js';

export const tipoEmissaoLabels = { todas: 'T', 'rps-e-nfse': 'R', 'somente-nfse': 'N' } as const;

export interface BasicasNfseManifest {
  emissorPadrao?: number;
  naturezaOperacao?: number;
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
    type: 'integer',
    minimum: 0,
    description: 'Operation nature (natureza de operação) used by default, as the integer the API stores.',
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
    description: 'CNPJ of the issuing company, 14 digits or formatted 00.000.000/0000-00.',
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

function matchKeyOf(tributo: Record<string, unknown>): string | undefined {
  const cnae = tributo.CNAE;
  const codigo = tributo.codigo;
  const listaServico = typeof codigo === 'object' && codigo !== null ? (codigo as Record<string, unknown>).listaServico : undefined;
  if (typeof cnae !== 'string' || typeof listaServico !== 'string') return undefined;
  return `${cnae.trim()} + ${listaServico.trim()}`;
}

export const configuracoesNfse: KindDefinition = {
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
  references: [],
  checkRecords: checkConfiguracoesNfse,
};
