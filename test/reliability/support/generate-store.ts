// Seeded store generator for the reliability suites: a `target` manifest of a few hundred records
// across the list kinds, and a `base` manifest that, applied first, leaves the account with work
// of every sort for the target: records to create, to update, to rename (previousNames), to delete
// (prune, tombstones), to retire (payment methods, services), and records of the same kinds that
// the target never mentions, which no apply may touch.
import { stringify } from 'yaml';
import type { Random } from './random.js';
import { createRandom } from './random.js';

type Entry = Record<string, unknown>;

export interface GeneratedStore {
  base: string;
  target: string;
  /** Records the target declares (services included). */
  records: number;
}

const words = ['Cabelos', 'Pele', 'Unhas', 'Perfumes', 'Kits', 'Óleos', 'Máscaras', 'Séruns', 'Batons', 'Sabonetes', 'Cremes', 'Esmaltes', 'Açaí', 'Ipê'];

interface TreeNode {
  name: string;
  parent?: number;
  inBase: boolean;
  /** Name in the base manifest when it differs (a rename). */
  baseName?: string;
}

/** A forest in which every base node's parent is in the base too; renames keep their position. */
function growTree(random: Random, prefix: string, count: number): TreeNode[] {
  const nodes: TreeNode[] = [];
  const depth: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const candidates = nodes.map((_, index) => index).filter((index) => (depth[index] ?? 0) < 3);
    const parent = candidates.length > 0 && random.chance(0.55) ? random.pick(candidates) : undefined;
    const parentInBase = parent === undefined || nodes[parent]?.inBase === true;
    const inBase = parentInBase && random.chance(0.6);
    const name = `${prefix} ${random.pick(words)} ${i}`;
    nodes.push({ name, ...(parent === undefined ? {} : { parent }), inBase, ...(inBase && random.chance(0.1) ? { baseName: `${name} antigo` } : {}) });
    depth.push(parent === undefined ? 1 : (depth[parent] ?? 1) + 1);
  }
  return nodes;
}

function treeEntries(nodes: readonly TreeNode[], nameField: string, parentField: string, side: 'base' | 'target', extra: (node: TreeNode, index: number) => Entry = () => ({})): Entry[] {
  const nameOf = (node: TreeNode) => (side === 'base' ? (node.baseName ?? node.name) : node.name);
  return nodes
    .map((node, index) => ({ node, index }))
    .filter(({ node }) => side === 'target' || node.inBase)
    .map(({ node, index }) => {
      const parent = node.parent === undefined ? undefined : nodes[node.parent];
      return {
        [nameField]: nameOf(node),
        ...(parent ? { [parentField]: nameOf(parent) } : {}),
        ...(side === 'target' && node.baseName ? { previousNames: [node.baseName] } : {}),
        ...extra(node, index),
      };
    });
}

export function generateStore(seed: number, scale = 1): GeneratedStore {
  const random = createRandom(seed);
  const n = (count: number) => Math.max(1, Math.round(count * scale));
  const base: Record<string, Entry[]> = {};
  const target: Record<string, Entry[]> = {};

  // Product groups: the target owns them (pruned), so base-only groups are deleted.
  const groups = growTree(random, 'Grupo', n(80));
  target.gruposProdutos = treeEntries(groups, 'nome', 'grupoProdutoPai', 'target');
  base.gruposProdutos = treeEntries(groups, 'nome', 'grupoProdutoPai', 'base');
  const extraRoot = `Grupo avulso ${seed}`;
  base.gruposProdutos.push({ nome: extraRoot }, ...Array.from({ length: 4 }, (_, i) => ({ nome: `Grupo avulso ${seed}-${i}`, grupoProdutoPai: extraRoot })));
  const tombstone = groups.find((g) => g.inBase && g.parent === undefined && !g.baseName && !groups.some((c) => c.parent !== undefined && groups[c.parent] === g));
  if (tombstone) {
    target.gruposProdutos = target.gruposProdutos.filter((g) => g.nome !== tombstone.name);
    target.gruposProdutos.push({ nome: tombstone.name, ensure: 'absent' });
  }

  // Product categories: not pruned, so base-only categories stay as they are.
  const categories = growTree(random, 'Categoria', n(70));
  target.categoriasProdutos = treeEntries(categories, 'descricao', 'categoriaPai', 'target');
  base.categoriasProdutos = [...treeEntries(categories, 'descricao', 'categoriaPai', 'base'), { descricao: `Categoria da loja física ${seed}` }, { descricao: `Vitrine ${seed}`, categoriaPai: `Categoria da loja física ${seed}` }];

  // Income and expense categories: under the default chart, and an own expense tree whose roots
  // move to another line of the income statement.
  const defaults = [
    ['Despesas administrativas', 'despesa'],
    ['Despesas comerciais', 'despesa'],
    ['Vendas de produtos', 'receita'],
  ] as const;
  const income: Entry[] = [];
  const incomeBase: Entry[] = [];
  for (let i = 0; i < n(40); i += 1) {
    const [parent, tipo] = random.pick(defaults);
    const entry = { descricao: `Conta ${random.pick(words)} ${i}`, tipo, categoriaPai: parent };
    income.push(entry);
    if (random.chance(0.5)) incomeBase.push(entry);
  }
  const ownTree = growTree(random, 'Centro', n(20));
  const isRoot = (node: TreeNode) => node.parent === undefined;
  income.push(...treeEntries(ownTree, 'descricao', 'categoriaPai', 'target', (node) => ({ tipo: 'despesa', ...(isRoot(node) ? { grupoDRE: 'despesas-operacionais' } : {}) })));
  incomeBase.push(...treeEntries(ownTree, 'descricao', 'categoriaPai', 'base', (node) => ({ tipo: 'despesa', ...(isRoot(node) ? { grupoDRE: 'nao-exibir' } : {}) })));
  incomeBase.push({ descricao: `Conta fora do manifesto ${seed}`, tipo: 'despesa', categoriaPai: 'Despesas comerciais' });
  target.categoriasReceitasDespesas = income;
  base.categoriasReceitasDespesas = incomeBase;

  // Payment methods: updates, one new default, retired tombstones, untouched extras.
  const types = ['pix-dinamico', 'boleto', 'dinheiro', 'deposito-bancario', 'transferencia', 'vale-presente'];
  const methods: Entry[] = [];
  const methodsBase: Entry[] = [];
  for (let i = 0; i < n(15); i += 1) {
    const entry: Entry = {
      descricao: `Forma ${seed}-${i}`,
      tipoPagamento: random.pick(types),
      finalidade: random.pick(['pagamentos', 'recebimentos', 'pagamentos-e-recebimentos']),
      destino: random.pick(['contas', 'caixa-e-bancos']),
      juros: Math.round(random.next() * 500) / 100,
      condicao: random.pick(['1x', '30 60', '28']),
    };
    methods.push(entry);
    if (random.chance(0.5)) methodsBase.push({ ...entry, juros: random.chance(0.5) ? entry.juros : 0.5, condicao: random.chance(0.5) ? entry.condicao : '10' });
  }
  const first = methods[0];
  if (first) first.padrao = 'padrao';
  for (let i = 0; i < 3; i += 1) {
    methodsBase.push({ descricao: `Forma antiga ${seed}-${i}`, tipoPagamento: 'boleto', finalidade: 'recebimentos', destino: 'contas' });
    methods.push({ descricao: `Forma antiga ${seed}-${i}`, ensure: 'absent' });
    methodsBase.push({ descricao: `Forma de outra equipe ${seed}-${i}`, tipoPagamento: 'cheque', finalidade: 'pagamentos', destino: 'contas' });
  }
  target.formasPagamentos = methods;
  base.formasPagamentos = methodsBase;

  // Situations of the sales module: new colours, new steps, and one the target does not declare.
  const inherited = ['Em aberto', 'Em andamento', 'Atendido', 'Cancelado'];
  const colour = () => `#${Math.floor(random.next() * 0xffffff).toString(16).padStart(6, '0')}`;
  const situations: Entry[] = [];
  const situationsBase: Entry[] = [{ modulo: 'Vendas', nome: `Etapa de outra equipe ${seed}`, herdado: 'Em aberto', cor: '#101010' }];
  for (let i = 0; i < n(12); i += 1) {
    const entry = { modulo: 'Vendas', nome: `Etapa ${seed}-${i}`, herdado: random.pick(inherited), cor: colour() };
    situations.push(entry);
    if (random.chance(0.5)) situationsBase.push({ ...entry, cor: random.chance(0.5) ? entry.cor : colour() });
  }
  target.situacoes = situations;
  base.situacoes = situationsBase;

  // Own logistics with services: new freight, new services, one service retired.
  const logistics: Entry[] = [];
  const logisticsBase: Entry[] = [];
  for (let i = 0; i < n(5); i += 1) {
    const services = Array.from({ length: random.int(2, 5) }, (_, s) => ({
      codigo: `SVC-${i}-${s}`,
      descricao: `Serviço ${random.pick(words)} ${i}-${s}`,
      freteItem: Math.round(random.next() * 1000) / 100,
      estimativaEntrega: random.int(1, 9),
    }));
    const descricao = `Logística ${seed}-${i}`;
    const inBase = random.chance(0.6);
    logistics.push({ descricao, situacao: 'habilitada', servicos: [...services, ...(inBase ? [{ codigo: `SVC-${i}-velho`, ensure: 'absent' }] : [])] });
    if (inBase) {
      logisticsBase.push({
        descricao,
        situacao: 'habilitada',
        servicos: [
          ...services.filter(() => random.chance(0.6)).map((s) => ({ ...s, freteItem: random.chance(0.5) ? s.freteItem : 99 })),
          { codigo: `SVC-${i}-velho`, descricao: 'Serviço antigo', freteItem: 1, estimativaEntrega: 3 },
        ],
      });
    }
  }
  target.logisticas = logistics;
  base.logisticas = logisticsBase;

  const policy = { prune: ['gruposProdutos'], maxDeletes: 100, retireInsteadOfDelete: ['formasPagamentos'] };
  const records = Object.values(target).reduce((sum, list) => sum + list.length, 0) + logistics.reduce((sum, l) => sum + (l.servicos as Entry[]).length, 0);
  return {
    base: stringify({ version: 1, ...base }),
    target: stringify({ version: 1, policy, ...target }),
    records,
  };
}
