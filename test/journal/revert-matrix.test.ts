// plan --revert for every kind of the registry × every action a run takes on it — create, update,
// delete or retire, cascade, replace — on the example store (examples/loja-nova, NFS-e settings
// included), end to end through the CLI against the emulator over HTTP. Each action is one run that
// changes a record of every kind that has the action (the table below, keyed by the registry's kinds,
// so a new kind fails to compile until it has a row); its revert is planned, saved and applied, and
// the account after it must equal the account before the run by meaning: both exported, loaded as
// manifests, compared record by record and field by field. The only differences allowed are the
// ones the revert plan itself names: a record of a kind the API cannot delete (a warehouse, a
// logistics service) is retired instead, and a change the plan shows blocked stays.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { registry } from '../../src/kinds/registry.js';
import type { KindKey, UnitKind } from '../../src/model/kinds.js';
import type { Plan } from '../../src/model/plan.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import { differencesAfterRevert, exportedAccount, notUndone } from '../support/revert.js';
import { runCli } from '../support/run-cli.js';

const actions = ['create', 'update', 'remove', 'cascade', 'replace'] as const;
type Action = (typeof actions)[number];

/** A kind's part in one action's run: its records in the run's manifests, changed by another kind's cascade, or why it has none. */
type Cell = { records: string } | { cascaded: true } | { without: string };
const records = (yaml: string): Cell => ({ records: yaml });
const cascaded: Cell = { cascaded: true };
const without = (why: string): Cell => ({ without: why });

const parentOnlyTree = without('only its own children name one of its records, and a parent goes only with them, declared: no cascade');

// What each action's run declares of each kind, on top of loja-nova.
const matrix: Record<KindKey, Record<Action, Cell>> = {
  formasPagamentos: {
    create: records('- descricao: Vale-presente da loja\n  tipoPagamento: vale-presente\n  finalidade: recebimentos\n  destino: contas\n'),
    update: records('- descricao: Boleto bancário\n  tipoPagamento: boleto\n  finalidade: recebimentos\n  destino: contas\n  condicao: "30"\n  juros: 1.5\n  taxas:\n    valor: 3.1\n'),
    remove: records('- descricao: Cartão de débito\n  ensure: absent\n'),
    cascade: without('no record of another kind names a payment method'),
    replace: without('every field of a payment method changes in place'),
  },
  categoriasReceitasDespesas: {
    create: records('- descricao: Fretes\n  tipo: despesa\n  categoriaPai: Despesas comerciais\n'),
    update: records('- descricao: Estandes e stands\n  previousNames: [Estandes]\n  tipo: despesa\n  categoriaPai: Eventos e feiras\n'),
    remove: records('- descricao: Viagens\n  categoriaPai: Eventos e feiras\n  ensure: absent\n'),
    cascade: parentOnlyTree,
    replace: without('every field of a category changes in place'),
  },
  categoriasProdutos: {
    create: records('- descricao: Unhas\n- descricao: Esmaltes\n  categoriaPai: Unhas\n'),
    update: records('- descricao: Cabelos e barba\n  previousNames: [Cabelos]\n'),
    remove: records('- descricao: Perfumaria\n  ensure: absent\n'),
    // Skincare and everything under it: a store category and a custom field's grouping name it.
    cascade: records(
      ['Skincare', 'Skincare > Limpeza', 'Skincare > Hidratação', 'Skincare > Proteção solar', 'Skincare > Kits', 'Skincare > Kits > Kits de viagem']
        .map((identity) => {
          const parts = identity.split(' > ');
          return `- descricao: ${parts.at(-1)}\n${parts.length > 1 ? `  categoriaPai: ${parts.slice(0, -1).join(' > ')}\n` : ''}  ensure: absent\n`;
        })
        .join(''),
    ),
    // Moved under another parent: the API cannot change categoriaPai in place.
    replace: records('- descricao: Perfumaria\n  categoriaPai: Maquiagem\n'),
  },
  gruposProdutos: {
    create: records('- nome: Kits presente\n'),
    update: records('- nome: Importados premium\n  previousNames: [Importados]\n  grupoProdutoPai: Revenda\n'),
    remove: records('- nome: Linha Mar Aberto\n  grupoProdutoPai: Marcas próprias\n  ensure: absent\n'),
    cascade: parentOnlyTree,
    replace: without('every field of a product group changes in place'),
  },
  situacoes: {
    create: records('- modulo: Vendas\n  nome: Em conferência\n  herdado: Em andamento\n  cor: "#123456"\n'),
    update: records('- modulo: Vendas\n  nome: Aguardando pagamento\n  herdado: Em aberto\n  cor: "#FFAA00"\n'),
    // Named by a transition, which this run removes too (transicoes' remove).
    remove: records('- modulo: Vendas\n  nome: Entregue ao cliente\n  ensure: absent\n'),
    // Two transitions name it: they go with it.
    cascade: records('- modulo: Vendas\n  nome: Aguardando pagamento\n  ensure: absent\n'),
    replace: without('its module is part of its identity: another module is another situation'),
  },
  transicoes: {
    create: records('- modulo: Vendas\n  de: Separando pedido\n  para: Em conferência\n  acoes: [Lançar estoque]\n'),
    update: records('- modulo: Vendas\n  de: Aguardando pagamento\n  para: Separando pedido\n  acoes: [Lançar contas, Lançar estoque]\n'),
    remove: records('- modulo: Vendas\n  de: Separando pedido\n  para: Entregue ao cliente\n  ensure: absent\n'),
    cascade: cascaded,
    replace: without('its module and situations are its identity'),
  },
  logisticas: {
    create: records(
      '- descricao: Transportadora parceira\n  situacao: habilitada\n  servicos:\n    - codigo: PAC\n      descricao: Encomenda\n      freteItem: 20\n      estimativaEntrega: 5\n' +
        '- descricao: Entrega própria\n  situacao: habilitada\n  servicos:\n    - codigo: MOTO-NOITE\n      descricao: Motoboy noturno\n      freteItem: 7.5\n      estimativaEntrega: 0\n',
    ),
    update: records('- descricao: Entrega própria\n  situacao: habilitada\n  servicos:\n    - codigo: MOTO-EXPRESSA\n      descricao: Motoboy expresso (mesmo dia)\n      freteItem: 6\n      estimativaEntrega: 1\n      aliases: [Expressa, Rápida]\n'),
    // A logistics deleted with its service, and a service retired (the API cannot delete one).
    remove: records('- descricao: Retirada na loja\n  ensure: absent\n- descricao: Entrega própria\n  situacao: habilitada\n  servicos:\n    - codigo: MOTO-AGENDADA\n      ensure: absent\n'),
    cascade: without('no record of another kind names a logistics; its services go with it (the remove run)'),
    replace: without('every field of a logistics and of a service changes in place'),
  },
  configuracoesNfse: {
    create: without('one object per account: never created'),
    update: records(
      [
        'ISS:',
        '  tributos:',
        '    - CNAE: 9602-5/01',
        '      descricaoServico: Maquiagem social e para eventos',
        '      codigo:',
        '        listaServico: "0601"',
        '      percentualISS: 3.5',
        '      padrao: true',
        'controle:',
        '  numeracaoRPS:',
        '    cnpjEmitente: "22333444000155"',
        'envioEmail:',
        '  remetente: Loja Nova',
        'adicionais:',
        '  tipoEmissao: todas',
        '  incluirParcelas: false',
        '',
      ].join('\n'),
    ),
    remove: without('never deleted'),
    cascade: without('never removed, and nothing names it'),
    replace: without('one object per account, changed in place'),
  },
  depositos: {
    create: records('- descricao: Mostruário\n'),
    update: records('- descricao: Consignado\n  desconsiderarSaldo: false\n'),
    remove: records('- descricao: Consignado\n  ensure: absent\n'),
    cascade: without('no record of another kind names a warehouse'),
    replace: without('every field of a warehouse changes in place'),
  },
  categoriasLojas: {
    create: records('- loja: Loja Virtual\n  categoriaProduto: Cabelos\n  descricao: Cabelos\n  codigo: "300"\n'),
    update: records('- loja: Loja Virtual\n  categoriaProduto: Maquiagem\n  descricao: Maquiagem e beleza\n  codigo: "100"\n'),
    remove: records('- loja: Loja Virtual\n  categoriaProduto: Maquiagem\n  ensure: absent\n'),
    cascade: cascaded,
    replace: without('its store and category are its identity'),
  },
  camposCustomizados: {
    create: records('- modulo: Produtos\n  nome: Fragrância\n  tipoCampo: Texto\n  agrupadores:\n    categoriasProdutos: [Perfumaria]\n'),
    update: records('- modulo: Produtos\n  nome: Tom de pele\n  tipoCampo: Lista\n  placeholder: Escolha um tom\n  opcoes: [Claro, Médio, Escuro, Bronzeado]\n'),
    remove: records('- modulo: Clientes e Fornecedores\n  nome: Tipo de pele\n  ensure: absent\n'),
    cascade: cascaded,
    // The API cannot change a field's type.
    replace: records('- modulo: Produtos\n  nome: Validade após aberto (meses)\n  tipoCampo: Texto\n  placeholder: "Ex.: 12"\n  tamanho: { minimo: 1, maximo: 36 }\n  agrupadores:\n    categoriasProdutos: [Skincare]\n'),
  },
};

const password = 'pw-revert-matrix-3b7e';

/** A fresh emulated account and a folder holding a copy of loja-nova. */
interface Store {
  emulator: Emulator;
  dir: string;
  env: NodeJS.ProcessEnv;
}

async function openStore(): Promise<Store> {
  const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-revert-matrix-'));
  cpSync(path.resolve(import.meta.dirname, '../../examples/loja-nova'), path.join(dir, 'loja-nova'), { recursive: true });
  return { emulator, dir, env: { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), NFSE_SENHA_PREFEITURA: password } };
}

// The Quick start's account stays as the example left it; the matrix runs on an account of its own.
let quickStart: Store;
let store: Store;

beforeAll(async () => {
  [quickStart, store] = await Promise.all([openStore(), openStore()]);
});
afterAll(async () => {
  for (const { emulator, dir } of [quickStart, store]) {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function cli({ dir, env }: Store, args: string[]) {
  const run = await runCli(args, { cwd: dir, env });
  expect(run.code, `erpsync ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

function lastRun({ dir }: Store) {
  const folder = path.join(dir, '.erpsync/journal');
  const file = readdirSync(folder).sort().at(-1) ?? '';
  const run = parseJournalRun(readFileSync(path.join(folder, file), 'utf8'), file);
  if (!run) throw new Error(`${file} is not a run`);
  return run;
}

/** Runs `apply` with these arguments, then its revert (planned, saved, applied); the account must be as before the run. */
async function runAndRevert(at: Store, name: string, apply: string[]): Promise<{ kinds: Set<UnitKind>; revert: Plan }> {
  const before = await exportedAccount({ cwd: at.dir, env: at.env }, `${name}-before`);
  expect(before.size, 'the export holds the account').toBeGreaterThan(0);
  await cli(at, ['apply', '--auto-approve', ...apply]);
  const run = lastRun(at);
  const planned = await cli(at, ['plan', '--revert', run.header.run, '--out', `${name}-revert.json`]);
  expect(planned.stdout).not.toContain('conflict');
  const revert = JSON.parse(readFileSync(path.join(at.dir, `${name}-revert.json`), 'utf8')) as Plan;
  await cli(at, ['apply', `${name}-revert.json`, '--auto-approve']);
  expect(differencesAfterRevert(before, await exportedAccount({ cwd: at.dir, env: at.env }, `${name}-after`), revert)).toEqual([]);
  // Nothing is left to undo: the same revert, planned again, changes nothing.
  expect((await cli(at, ['plan', '--revert', run.header.run])).stdout).toContain('No changes');
  return { kinds: new Set(run.changes.filter((c) => c.outcome === 'applied').map((c) => registry.unit(c.kind)?.nestedIn ?? c.kind)), revert };
}

describe('plan --revert of every kind and action, on loja-nova with NFS-e', () => {
  it('has a run or a reason for every kind of the registry and every action', () => {
    expect(Object.keys(matrix).sort()).toEqual(registry.kinds.map((k) => k.key).sort());
    for (const [kind, cells] of Object.entries(matrix)) for (const action of actions) expect('without' in cells[action] ? cells[action].without : 'ok', `${kind} ${action}`).not.toBe('');
  });

  it("undoes the Quick start's own apply of the example: the fresh account again, but for the default payment method the API only gives", async () => {
    const { revert } = await runAndRevert(quickStart, 'quick-start', ['loja-nova']);
    // The API gives a payment method the default and never takes it: the run gave it to Pix, and the revert says so.
    expect([...notUndone(revert)]).toEqual([['formasPagamentos "Pix"', ['padrao']]]);
    expect(revert.changes.filter((c) => c.action === 'blocked')).toEqual([]);
  });

  it.each(actions)('undoes a run that does %s on every kind that can', async (action) => {
    await cli(store, ['apply', '--auto-approve', 'loja-nova']);
    const folder = path.join(store.dir, `run-${action}`);
    mkdirSync(folder);
    const cells = Object.entries(matrix).map(([kind, row]) => [kind, row[action]] as const);
    for (const [kind, cell] of cells) if ('records' in cell) writeFileSync(path.join(folder, `${kind}.yaml`), `version: 1\n${kind}:\n${cell.records.replace(/^(?=.)/gm, '  ')}`);
    const flags = { create: [], update: [], remove: ['--max-deletes', '20'], cascade: ['--allow-cascade', '--max-deletes', '20'], replace: ['--allow-replace'] }[action];
    const { kinds } = await runAndRevert(store, action, [...flags, `run-${action}`]);
    // Every kind with a part in the action took part in the run.
    expect(cells.filter(([, cell]) => !('without' in cell)).map(([kind]) => kind).filter((kind) => !kinds.has(kind as UnitKind))).toEqual([]);
  });
});
