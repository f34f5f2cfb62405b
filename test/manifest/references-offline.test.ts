// What validate says about references, offline: a note only for a name no manifest declares (by
// its name or by its path), with the declared names close to it as `plan` would hint them; and
// an `id:` pinned twice is an error before any request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { offlineDiagnostics } from '../support/offline-diagnostics.js';
import { runCli } from '../support/run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-references-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const diagnosticsOf = (yaml: string) => offlineDiagnostics(dir, yaml);

describe('references, offline', () => {
  it('notes on the shipped example only the names the account holds of its own (default chart, built-in situations)', async () => {
    const result = await loadManifests(['examples/loja-nova'], { cwd: repo, env: {}, offline: true });
    const named = result.diagnostics.filter((d) => d.code === 'unresolved-reference').map((d) => /^`([^`]+)`/.exec(d.message)?.[1]);
    expect([...new Set(named)].sort()).toEqual(['Atendido', 'Despesas administrativas', 'Despesas comerciais', 'Em aberto', 'Em andamento', 'Vendas de produtos', 'Vendas de serviços']);
  });

  it('takes a declared record named by its path, and hints the declared names close to a typo', async () => {
    const lines = await diagnosticsOf(
      [
        'version: 1',
        'categoriasProdutos:',
        '  - descricao: Maquiagem',
        '  - descricao: Rosto',
        '    categoriaPai: Maquiagem',
        '  - descricao: Olhos',
        '    categoriaPai: Maquiagm',
        'camposCustomizados:',
        '  - modulo: Produtos',
        '    nome: Tom de pele',
        '    tipoCampo: Lista',
        '    opcoes: [Claro]',
        '    agrupadores:',
        '      categoriasProdutos: [Maquiagem > Rosto, Rosto, Maquiagem > Rsto]',
        '',
      ].join('\n'),
    );
    expect(lines).toEqual([
      'm.yaml:7:19: note: unresolved-reference: `Maquiagm` is not declared in these manifests; it must exist in the account when you plan',
      '    hint: did you mean `Maquiagem`?',
      'm.yaml:14:27: note: unresolved-reference: `Maquiagem > Rsto` is not declared in these manifests; it must exist in the account when you plan',
      // Olhos is declared under the path its manifest gives (the account may hold `Maquiagm`): close too.
      '    hint: did you mean `Maquiagem > Rosto`, `Maquiagm > Olhos`?',
    ]);
  });

  it('hints names within the reference scope: a situation of the same module', async () => {
    const lines = await diagnosticsOf(
      'version: 1\nsituacoes:\n  - modulo: Vendas\n    nome: Separando\n    herdado: Em aberto\n  - modulo: Vendas\n    nome: Embalado\n    herdado: Separndo\n  - modulo: Compras\n    nome: Conferindo\n    herdado: Separando\n',
    );
    expect(lines.filter((l) => !l.includes('Em aberto'))).toEqual([
      'm.yaml:8:14: note: unresolved-reference: `Separndo` is not declared in these manifests; it must exist in the account when you plan',
      '    hint: did you mean `Separando`?',
      'm.yaml:11:14: note: unresolved-reference: `Separando` is not declared in these manifests; it must exist in the account when you plan',
    ]);
  });

  it('hints the records every account holds (default chart, Vendas built-ins, the Vendas module) as plan does from the account', async () => {
    const yaml = [
      'version: 1',
      'categoriasReceitasDespesas:',
      '  - descricao: Software de gestão',
      '    categoriaPai: Despesas Administrativs',
      '    tipo: despesa',
      'situacoes:',
      '  - modulo: Vendass',
      '    nome: Separando',
      '    herdado: Em aberto',
      '  - modulo: Vendas',
      '    nome: Embalando',
      '    herdado: Em andamnto',
      '  - modulo: Compras',
      '    nome: Conferindo',
      '    herdado: Atendido',
      '',
    ].join('\n');
    const offline = await diagnosticsOf(yaml);
    const hintsOf = (lines: readonly string[]) => lines.flatMap((line, i) => (line.startsWith('    hint:') ? [`${(lines[i - 1] ?? '').split(':').slice(0, 3).join(':')} ${line.trim()}`] : []));
    expect(hintsOf(offline)).toEqual([
      'm.yaml:4:19 hint: did you mean `Despesas administrativas`, `Despesas administrativas > Água`, `Despesas administrativas > Aluguel`?',
      'm.yaml:7:13 hint: did you mean `Vendas`?',
      'm.yaml:12:14 hint: did you mean `Em andamento`?',
    ]);
    // A module the account may hold (Compras) is not noted; Atendido outside Vendas is not hinted either.
    expect(offline.filter((l) => l.includes('Compras'))).toEqual([]);
    const planned = await runCli(['plan', 'm.yaml', '--sandbox', '--sandbox-state', 'state.json'], { cwd: dir, env: {} });
    expect(planned.code).toBe(1);
    const planLines = planned.stderr.split('\n');
    expect(hintsOf(planLines).filter((hint) => !hint.startsWith('m.yaml:15:'))).toEqual(hintsOf(offline));
  });

  it('refuses an id pinned by two records of a kind, before any request', async () => {
    const lines = await diagnosticsOf('version: 1\ngruposProdutos:\n  - nome: Cabelos\n    id: 7\n  - nome: Unhas\n    id: 7\n  - nome: Perfumes\n    id: 8\n');
    expect(lines).toEqual([
      'm.yaml:6:9: error: duplicate-pinned-id: id 7 is pinned by two gruposProdutos records: `Unhas` here and `Cabelos` at m.yaml:4:9',
      '    hint: a live record can be managed by one manifest record only; remove one of the pins',
    ]);
  });
});
