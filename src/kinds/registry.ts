// The kinds, one entry each: the one list. Every other list of kinds (unit kinds in dependency
// order, manifest keys, schemas, tests that enumerate kinds) is derived from a Registry. Adding a
// kind is one file beside this one plus one line here. Tests may build a registry of their own.
// Read-only kinds (records manifests name, see kind.ts) come first: every kind may refer to them.
import { acoesSituacoes } from './acoes-situacoes.js';
import { camposCustomizados } from './campos-customizados.js';
import { canaisVenda } from './canais-venda.js';
import { naturezasOperacoes } from './naturezas-operacoes.js';
import { tiposCamposCustomizados } from './tipos-campos-customizados.js';
import { tiposContatos } from './tipos-contatos.js';
import { categoriasLojas } from './categorias-lojas.js';
import { contatos } from './contatos.js';
import { categoriasProdutos } from './categorias-produtos.js';
import { categoriasReceitasDespesas } from './categorias-receitas-despesas.js';
import { configuracoesNfse } from './configuracoes-nfse.js';
import { depositos } from './depositos.js';
import { formasPagamentos } from './formas-pagamentos.js';
import { gruposProdutos } from './grupos-produtos.js';
import type { Kind, KindAdapter, KindDefinition } from './kind.js';
import { logisticas } from './logisticas.js';
import { modulosCamposCustomizados } from './modulos-campos-customizados.js';
import { modulosSituacoes } from './modulos-situacoes.js';
import { situacoes } from './situacoes.js';
import { transicoes } from './transicoes.js';
import { kindKeys, readOnlyUnitKinds } from '../model/kinds.js';
import type { KindKey, ReadOnlyUnitKind, UnitKind } from '../model/kinds.js';

export interface Registry {
  /** Manifest kinds in dependency order: a kind comes after every kind it refers to. */
  kinds: readonly Kind[];
  /** Unit kinds in dependency (reading and creating) order: read-only kinds, then each kind and the units nested in it. */
  units: readonly KindAdapter[];
  kind(key: KindKey): KindDefinition;
  unit(kind: UnitKind): KindAdapter | undefined;
}

export function createRegistry(kinds: readonly Kind[], readOnly: readonly KindAdapter[] = readOnlyKinds): Registry {
  const units = [...readOnly, ...kinds.flatMap((kind): KindAdapter[] => [kind, ...kind.nested])];
  const byKey = new Map<string, Kind>(kinds.map((kind) => [kind.key, kind]));
  const byUnit = new Map<string, KindAdapter>(units.map((unit) => [unit.kind, unit]));
  return {
    kinds,
    units,
    kind(key) {
      const found = byKey.get(key);
      if (!found) throw new Error(`no kind ${key} in this registry`);
      return found;
    },
    unit: (kind) => byUnit.get(kind),
  };
}

// The Record type makes a missing or unknown kind a compile error; the order is model/kinds'.
const kindsByKey = {
  formasPagamentos,
  categoriasReceitasDespesas,
  categoriasProdutos,
  gruposProdutos,
  situacoes,
  transicoes,
  logisticas,
  configuracoesNfse,
  depositos,
  categoriasLojas,
  camposCustomizados,
} as const satisfies Record<KindKey, Kind>;

const readOnlyByKind = {
  naturezasOperacoes,
  canaisVenda,
  tiposContatos,
  tiposCamposCustomizados,
  modulosCamposCustomizados,
  modulosSituacoes,
  acoesSituacoes,
  contatos,
} as const satisfies Record<ReadOnlyUnitKind, KindAdapter>;

const readOnlyKinds: readonly KindAdapter[] = readOnlyUnitKinds.map((kind) => readOnlyByKind[kind]);

export const registry: Registry = createRegistry(kindKeys.map((key) => kindsByKey[key]));
