// /nfse/configuracoes: the account's NFS-e settings singleton. GET answers the object itself
// (not wrapped in `data`, as the spec documents); PUT replaces it whole and answers 204.
// ISS.tributos entries are matched by id: entries without id are created, entries left out are
// removed (rule nfse-settings-shape); unknown or repeated ids and several defaults are refused in
// strict mode only (nfse-tributo-ids, nfse-one-default-tributo).
import type { FieldProblem } from '../api-error.js';
import { ruleFailure, validationFailure } from '../api-error.js';
import type { EmulatorMode } from '../rules.js';
import { enforces } from '../rules.js';
import type { ObjectSpec } from '../body-schema.js';
import { defaultOf } from '../body-schema.js';
import type { Route } from '../router.js';
import { noContent, ok } from '../router.js';
import type { EmulatorState, NfseSettings, NfseTributo } from '../state.js';
import { allocateId } from '../state.js';
import { requireBody } from './common.js';

const tributoSpec: ObjectSpec = {
  type: 'object',
  properties: {
    id: { type: 'integer', min: 1 },
    percentualISS: { type: 'number', min: 0, default: 0 },
    CNAE: { type: 'string', required: true },
    descricaoServico: { type: 'string', required: true },
    padrao: { type: 'boolean', default: false },
    indicadorOperacao: { type: 'string', default: '' },
    codigo: {
      type: 'object',
      required: true,
      properties: {
        listaServico: { type: 'string', required: true },
        tributacao: { type: 'string', default: '' },
      },
    },
  },
};

// Full replacement at every level: an omitted section comes back with its defaults. The real
// service's merge behaviour is undocumented; replacing is the stricter reading.
const nfseSettingsSpec: ObjectSpec = {
  type: 'object',
  properties: {
    basicas: {
      type: 'object',
      properties: {
        emissorPadrao: { type: 'integer', min: 0, default: 0 },
        naturezaOperacao: { type: 'integer', min: 0, default: 0 },
      },
    },
    ISS: {
      type: 'object',
      properties: {
        zerar: { type: 'boolean', default: false },
        reter: { type: 'boolean', default: false },
        descontar: { type: 'boolean', default: false },
        tributos: { type: 'array', required: true, items: tributoSpec },
      },
    },
    controle: {
      type: 'object',
      properties: {
        numeracaoRPS: {
          type: 'object',
          properties: {
            cnpjEmitente: { type: 'string', default: '' },
            id: { type: 'integer', min: 0, default: 0 },
            numero: { type: 'integer', min: 0, default: 1 },
            serie: { type: 'integer', min: 0, default: 1 },
          },
        },
      },
    },
    impostos: {
      type: 'object',
      properties: {
        bloquearRetencaoPessoaFisica: { type: 'boolean', default: false },
        IR: {
          type: 'object',
          properties: {
            percentual: { type: 'number', min: 0, default: 0 },
            valorMinimoAlternativoDescontol: { type: 'number', min: 0, default: 0 },
            descontar: { type: 'boolean', default: false },
            texto: {
              type: 'object',
              properties: { padrao: { type: 'string', default: '' }, isento: { type: 'string', default: '' } },
            },
          },
        },
        outros: {
          type: 'object',
          properties: {
            CSLLPISCOFINSDTO: {
              type: 'object',
              properties: { calcular: { type: 'boolean', default: false }, reter: { type: 'boolean', default: false } },
            },
            INSS: { type: 'object', properties: { reter: { type: 'boolean', default: false } } },
            aproximados: {
              type: 'object',
              properties: {
                utilizarAliqIBPT: { type: 'boolean', default: false },
                percentualAliq: { type: 'number', min: 0, default: 0 },
              },
            },
          },
        },
      },
    },
    envioEmail: {
      type: 'object',
      properties: {
        enviarBoletoRPS: { type: 'boolean', default: false },
        remetente: { type: 'string', default: '' },
        assunto: { type: 'string', default: '' },
        mensagem: { type: 'string', default: '' },
        padrao: {
          type: 'object',
          properties: { copia: { type: 'string', default: '' }, resposta: { type: 'string', default: '' } },
        },
      },
    },
    adicionais: {
      type: 'object',
      properties: {
        CFPS: { type: 'string', default: '' },
        CFOP: { type: 'string', default: '' },
        AEDF: { type: 'string', default: '' },
        proximoNumeroLote: { type: 'integer', min: 0, default: 1 },
        observacaoImpressaNota: { type: 'string', default: '' },
        descricaoComplementar: { type: 'string', default: '' },
        tipoEmissao: { type: 'string', enum: ['T', 'R', 'N'], default: 'T' },
        campoNumeroDocContas: { type: 'boolean', default: false },
        incentivadorFiscal: { type: 'boolean', default: false },
        alterarSituacao: { type: 'boolean', default: false },
        incluirParcelas: { type: 'boolean', default: false },
        considerarDataParcela: { type: 'boolean', default: false },
        considerarDataOrdemServico: { type: 'boolean', default: false },
        cadastroPrefeitura: {
          type: 'object',
          properties: { login: { type: 'string', default: '' }, senha: { type: 'string', default: '' } },
        },
      },
    },
  },
};

export function defaultNfseSettings(): NfseSettings {
  return defaultOf(nfseSettingsSpec) as NfseSettings;
}

type IncomingTributo = Omit<NfseTributo, 'id'> & { id?: number };

function mergeTributos(state: EmulatorState, mode: EmulatorMode, incoming: IncomingTributo[]): NfseTributo[] {
  const existing = new Set(state.nfseConfiguracoes.ISS.tributos.map((t) => t.id));
  const seen = new Set<number>();
  // Lenient mode: an entry whose id is unknown or already taken is a new entry.
  const isNew = (t: IncomingTributo): boolean => t.id === undefined || !existing.has(t.id) || seen.has(t.id);
  const problems = incoming.flatMap((t, index): FieldProblem[] => {
    if (t.id === undefined) return [];
    const element = `ISS.tributos[${index}].id`;
    const problem: FieldProblem | undefined = !existing.has(t.id)
      ? { kind: 'unknownReference', element, msg: `O tributo ${t.id} não existe` }
      : seen.has(t.id)
        ? { kind: 'notAllowed', element, msg: `O tributo ${t.id} aparece mais de uma vez` }
        : undefined;
    seen.add(t.id);
    return problem ? [problem] : [];
  });
  if (problems.length > 0 && enforces(mode, 'nfse-tributo-ids')) throw validationFailure(problems);
  if (incoming.filter((t) => t.padrao).length > 1 && enforces(mode, 'nfse-one-default-tributo')) {
    throw ruleFailure('rule', 'ISS.tributos', 'Apenas um tributo pode ser o padrão.');
  }
  seen.clear();
  return incoming.map((t) => {
    const id = isNew(t) ? allocateId(state) : (t.id as number);
    seen.add(id);
    return { ...t, id };
  });
}

export const nfseSettingsRoutes: Route[] = [
  {
    method: 'GET',
    template: '/nfse/configuracoes',
    handle: ({ state }) => ok(state.nfseConfiguracoes),
  },
  {
    method: 'PUT',
    template: '/nfse/configuracoes',
    handle: ({ state, body, mode, tx }) => {
      const settings = requireBody(body, nfseSettingsSpec, mode) as unknown as NfseSettings & {
        ISS: { tributos: IncomingTributo[] };
      };
      const tributos = mergeTributos(state, mode, settings.ISS.tributos);
      tx.assign(state, { nfseConfiguracoes: { ...settings, ISS: { ...settings.ISS, tributos } } });
      return noContent();
    },
  },
];
