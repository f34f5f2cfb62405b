// The drift test account: the "store" manifests applied to a fresh emulator and committed to git,
// then moved on two sides, as happens between two nightly drift runs: the manifests change
// without being applied (pending from git), and people edit the account in the ERP (modified,
// missing, unmanaged, and differences policy.ignore tolerates).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../support/run-cli.js';
import { findId, openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';

const policy = `policy:
  prune:
    - gruposProdutos
  ignore:
    - kind: logisticas
      key: Entrega própria
      field: servicos.*.freteItem
      reason: The store adjusts motoboy freight in the ERP during promotions.
    - kind: situacoes
      key: Vendas > Em conferência
      reason: The shipping team owns this situation.
    - kind: formasPagamentos
      key: Dinheiro
      reason: Cash is the account's own.
`;

const applied = `version: 1
${policy}
formasPagamentos:
  - descricao: Pix da loja
    tipoPagamento: pix-dinamico
    finalidade: recebimentos
    destino: caixa-e-bancos
    juros: 0
  - descricao: Boleto bancário
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    condicao: "28"

categoriasReceitasDespesas:
  - descricao: Eventos e feiras
    tipo: despesa
    grupoDRE: despesas-operacionais
  - descricao: Estandes
    tipo: despesa
    categoriaPai: Eventos e feiras

categoriasProdutos:
  - descricao: Maquiagem
  - descricao: Olhos
    categoriaPai: Maquiagem
  - descricao: Lábios
    categoriaPai: Maquiagem

gruposProdutos:
  - nome: Marcas próprias
  - nome: Revenda

situacoes:
  - modulo: Vendas
    nome: Aguardando pagamento
    herdado: Em aberto
    cor: "#f5a623"
  - modulo: Vendas
    nome: Em conferência
    herdado: Em andamento
    cor: "#aaaaaa"

logisticas:
  - descricao: Entrega própria
    situacao: habilitada
    servicos:
      - codigo: MOTO
        descricao: Motoboy
        freteItem: 4.5
        estimativaEntrega: 1

configuracoesNfse:
  adicionais:
    descricaoComplementar: Serviço realizado no estúdio.
`;

/** The manifests after three commits nobody applied: a new condition, a new group, a rename and a removal. */
const changed = applied
  .replace('    condicao: "28"', '    condicao: "30 60"')
  .replace('  - nome: Marcas próprias\n', '  - nome: Marcas da casa\n    previousNames:\n      - Marcas próprias\n')
  .replace('  - nome: Revenda\n', '  - nome: Revenda\n  - nome: Importados\n    grupoProdutoPai: Revenda\n')
  .replace('  - descricao: Estandes\n    tipo: despesa\n', '  - descricao: Estandes\n    ensure: absent\n');

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=erpsync test', '-c', 'user.email=test@erpsync.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  });
}

async function put(account: TestAccount, apiPath: string, body: unknown): Promise<void> {
  await account.call('PUT', apiPath, body);
}

/** Edits made in the ERP's own screens after the last apply. */
async function editInTheErp(account: TestAccount): Promise<void> {
  const pix = await findId(account, '/formas-pagamentos', 'Pix da loja');
  await put(account, `/formas-pagamentos/${pix}`, { descricao: 'Pix da loja', tipoPagamento: 17, finalidade: 2, destino: 3, juros: 1.5 });
  await account.call('POST', '/formas-pagamentos', { descricao: 'Vale-presente', tipoPagamento: 12, finalidade: 2, destino: 1 });

  const eventos = await findId(account, '/categorias/receitas-despesas', 'Eventos e feiras');
  await put(account, `/categorias/receitas-despesas/${eventos}`, { descricao: 'Eventos e feiras', tipo: 1, idCategoriaPai: 0, grupoDRE: 9 });
  // A default category of the chart, changed: no longer the account's untouched default.
  const tarifa = await findId(account, '/categorias/receitas-despesas', 'Tarifa bancária');
  await put(account, `/categorias/receitas-despesas/${tarifa}`, { descricao: 'Tarifa bancária', tipo: 1, idCategoriaPai: 0, grupoDRE: 11 });

  await account.call('DELETE', `/categorias/produtos/${await findId(account, '/categorias/produtos', 'Lábios')}`);
  await account.call('POST', '/grupos-produtos', { nome: 'Promoções' });

  const situations = (await account.call('GET', '/situacoes/modulos/98310')) as { data: { id: number; nome: string }[] };
  const waiting = situations.data.find((s) => s.nome === 'Aguardando pagamento');
  await put(account, `/situacoes/${waiting?.id}`, { idModuloSistema: 98310, nome: 'Aguardando pagamento', idHerdado: 6, cor: '#ff0000' });
  // Declared, but policy.ignore leaves it to the shipping team: apply never created it, they did.
  await account.call('POST', '/situacoes', { idModuloSistema: 98310, nome: 'Em conferência', idHerdado: 15, cor: '#00ff00' });

  const entrega = await findId(account, '/logisticas', 'Entrega própria');
  const services = (await account.call('GET', '/logisticas/servicos')) as { data: { id: number; codigo: string }[] };
  const moto = services.data.find((s) => s.codigo === 'MOTO');
  await put(account, `/logisticas/servicos/${moto?.id}`, { descricao: 'Motoboy', codigo: 'MOTO', aliases: [], freteItem: 6, estimativaEntrega: 1 });
  await account.call('POST', '/logisticas/servicos', {
    logistica: { id: entrega },
    servicos: [{ descricao: 'Bicicleta', codigo: 'BIKE', aliases: ['Bike'], freteItem: 3, estimativaEntrega: 1 }],
  });
  const parceira = (await account.call('POST', '/logisticas', { descricao: 'Transportadora parceira', situacao: 'H' })) as { data: { id: number } };
  await account.call('POST', '/logisticas/servicos', {
    logistica: { id: parceira.data.id },
    servicos: [{ descricao: 'Econômico', codigo: 'ECO', aliases: [], freteItem: 12.9, estimativaEntrega: 5 }],
  });

  const settings = (await account.call('GET', '/nfse/configuracoes')) as Record<string, unknown>;
  const adicionais = { ...(settings.adicionais as Record<string, unknown>), descricaoComplementar: 'Serviço do estúdio Loja Nova.' };
  await put(account, '/nfse/configuracoes', { ...settings, adicionais });
}

export interface DriftAccount extends TestAccount {
  /** The commit whose manifests were applied. */
  baseline: string;
}

/** The account and its git work tree (manifests in `manifests/`), with drift on both sides. */
export async function openDriftAccount(): Promise<DriftAccount> {
  const account = await openTestAccount();
  const { dir, env } = account;
  mkdirSync(path.join(dir, 'manifests'));
  writeFileSync(path.join(dir, 'manifests', 'loja.yaml'), applied);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', 'manifests']);
  git(dir, ['commit', '-q', '-m', 'store configuration']);
  const result = await runCli(['apply', 'manifests', '--auto-approve', '--concurrency', '1'], { cwd: dir, env });
  if (result.code !== 0) throw new Error(`the store did not apply:\n${result.stdout}${result.stderr}`);
  writeFileSync(path.join(dir, 'manifests', 'loja.yaml'), changed);
  git(dir, ['commit', '-q', '-am', 'new condition, new group, rename, removal']);
  await editInTheErp(account);
  return { ...account, baseline: git(dir, ['rev-parse', 'HEAD~1']).trim() };
}
