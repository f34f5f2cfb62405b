// The benchmark's store of N records across the kinds, as manifests: `base` describes the account
// the benchmark builds, `target` the same account with a few changes to apply (half updates, half
// creates). Shaped like a real store: a handful of payment methods, situations and logistics, and
// the bulk in the catalogue structure (product categories and groups) and the chart of accounts.
// Pure and deterministic.
import { stringify } from 'yaml';

type Entry = Record<string, unknown>;

export interface BenchStore {
  records: number;
  base: string;
  target: string;
  /** Changes the target makes: updates + creates, one write request each. */
  changes: number;
  /** Records per manifest kind in the base (services counted under logisticasServicos). */
  counts: Record<string, number>;
}

/** Parents for tree records: a tenth are roots, the rest hang under an earlier record, at most 4 deep. */
function tree(count: number, prefix: string, nameField: string, parentField: string): Entry[] {
  const entries: Entry[] = [];
  const depth: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const parent = i % 10 === 0 || i < 10 ? undefined : (i * 7919) % i;
    const parentDepth = parent === undefined ? 0 : (depth[parent] ?? 1);
    const underParent = parent !== undefined && parentDepth < 4;
    depth.push(underParent ? parentDepth + 1 : 1);
    entries.push({ [nameField]: `${prefix} ${i}`, ...(underParent ? { [parentField]: `${prefix} ${parent}` } : {}) });
  }
  return entries;
}

export function buildBenchStore(records: number): BenchStore {
  const methods = Math.min(40, Math.max(2, Math.round(records * 0.08)));
  const situations = Math.min(30, Math.max(2, Math.round(records * 0.05)));
  const logistics = Math.min(20, Math.max(1, Math.round(records * 0.02)));
  const services = logistics * 3;
  const rest = records - methods - situations - logistics - services;
  const income = Math.round(rest * 0.2);
  const categories = Math.round(rest * 0.4);
  const groups = rest - income - categories;

  const defaults = [['Despesas administrativas', 'despesa'], ['Despesas comerciais', 'despesa'], ['Vendas de produtos', 'receita']] as const;
  const base = {
    version: 1,
    formasPagamentos: Array.from({ length: methods }, (_, i) => ({
      descricao: `Forma ${i}`,
      tipoPagamento: ['pix-dinamico', 'boleto', 'deposito-bancario', 'transferencia'][i % 4],
      finalidade: 'recebimentos',
      destino: i % 2 === 0 ? 'contas' : 'caixa-e-bancos',
      juros: (i % 5) / 2,
    })),
    categoriasReceitasDespesas: Array.from({ length: income }, (_, i) => {
      const [parent, tipo] = defaults[i % defaults.length] ?? defaults[0];
      return { descricao: `Conta ${i}`, tipo, categoriaPai: parent };
    }),
    categoriasProdutos: tree(categories, 'Categoria', 'descricao', 'categoriaPai'),
    gruposProdutos: tree(groups, 'Grupo', 'nome', 'grupoProdutoPai'),
    situacoes: Array.from({ length: situations }, (_, i) => ({
      modulo: 'Vendas',
      nome: `Etapa ${i}`,
      herdado: ['Em aberto', 'Em andamento', 'Atendido'][i % 3],
      cor: `#${(0x102030 + i * 0x010101).toString(16)}`,
    })),
    logisticas: Array.from({ length: logistics }, (_, i) => ({
      descricao: `Logística ${i}`,
      situacao: 'habilitada',
      servicos: Array.from({ length: 3 }, (_, s) => ({ codigo: `L${i}-S${s}`, descricao: `Serviço ${i}-${s}`, freteItem: s + 1, estimativaEntrega: s + 2 })),
    })),
  };

  // The changes to apply: updates of payment methods and situations, creates of product groups.
  const changes = Math.min(50, Math.max(10, Math.round(records * 0.02)));
  const updates = Math.min(Math.floor(changes / 2), methods + situations);
  const target = structuredClone(base);
  for (let i = 0; i < updates; i += 1) {
    const method = target.formasPagamentos[i];
    if (method) method.juros += 1;
    else {
      const situation = target.situacoes[i - methods];
      if (situation) situation.cor = '#abcdef';
    }
  }
  target.gruposProdutos.push(...Array.from({ length: changes - updates }, (_, i) => ({ nome: `Grupo novo ${i}` })));

  return {
    records,
    base: stringify(base),
    target: stringify(target),
    changes,
    counts: {
      formasPagamentos: methods,
      categoriasReceitasDespesas: income,
      categoriasProdutos: categories,
      gruposProdutos: groups,
      situacoes: situations,
      logisticas: logistics,
      logisticasServicos: services,
    },
  };
}
