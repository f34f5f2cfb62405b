// ${VAR} interpolation as the loader does it: values are substituted into parsed scalars as
// text and converted to the field's type by the schema, whatever characters they hold; no
// message quotes a variable's value; credential and secret variables stay out of ordinary fields;
// only the variables the project declares are read (model/variables), never the rest of the environment.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { LoadResult } from '../../src/manifest/load-manifests.js';

const dir = mkdtempSync(path.join(tmpdir(), 'erpsync-variables-'));

/** Warnings the process emitted (the yaml library printing on its own); none may appear. */
const warnings: string[] = [];
const collect = (warning: Error) => warnings.push(warning.message);
beforeAll(() => process.on('warning', collect));
afterEach(() => {
  warnings.length = 0;
});
afterAll(() => {
  process.off('warning', collect);
  rmSync(dir, { recursive: true, force: true });
});

/** Loads with `variables` as a target declares them, and `env` as the process environment. */
async function load(files: Record<string, string>, variables: Record<string, string>, offline = false, env: NodeJS.ProcessEnv = {}): Promise<LoadResult> {
  const names = Object.keys(files);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const result = await loadManifests(names, { cwd: dir, env, variables, offline });
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

const shown = (diagnostics: readonly Diagnostic[]) =>
  diagnostics.map((d) => `${d.position?.file ?? '?'}:${d.position?.line ?? 0}:${d.position?.col ?? 0}: ${d.code}: ${d.message}`);

const groupNamed = (name: string) => `version: 1\ngruposProdutos:\n  - nome: ${name}\n`;
const nfse = 'version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      login: loja\n      senha: ${SENHA}\n';

/** Values that are YAML syntax, or look like another type, when read as YAML. */
const yamlLooking = ['98765432', '@Segr3do!', '[x', '"x', "'x", '!x Segr3do', '*x', '&x y', '{a: 1}', '# not a comment', 'a: b', '- item', 'true', 'null', '0x1F', '1e3', '|', 'duas\nlinhas', ' margem '];

describe('a variable value is text, never YAML', () => {
  it.each(yamlLooking)('%j reaches a text field as is, quoted or not', async (value) => {
    for (const written of ['${NOME}', '"${NOME}"', "'${NOME}'"]) {
      const result = await load({ 'g.yaml': groupNamed(written) }, { NOME: value });
      // A line break in a name is worth a warning of its own (see confusable-names.test.ts).
      expect(shown(result.diagnostics.filter((d) => d.code !== 'confusable-name'))).toEqual([]);
      expect(warnings).toEqual([]);
      expect(result.desired?.records.get('gruposProdutos')?.[0]?.fields.nome).toBe(value);
    }
  });

  it.each(yamlLooking)('%j reaches a secret field as is, which names its variable', async (value) => {
    const result = await load({ 'n.yaml': nfse }, { SENHA: value });
    expect(shown(result.diagnostics)).toEqual([]);
    const settings = result.desired?.records.get('configuracoesNfse')?.[0];
    expect((settings?.fields.adicionais as { cadastroPrefeitura: { senha: unknown } }).cadastroPrefeitura.senha).toBe(value);
    expect(settings?.secretVariables).toEqual({ 'adicionais.cadastroPrefeitura.senha': 'SENHA' });
  });

  it('keeps text around a reference and reads $${ as a literal ${', async () => {
    const result = await load({ 'g.yaml': groupNamed('"Loja ${LOJA} $${HOME} $$${X}"') }, { LOJA: '[1,2', HOME: '/root' });
    expect(shown(result.diagnostics)).toEqual([]);
    expect(result.desired?.records.get('gruposProdutos')?.[0]?.fields.nome).toBe('Loja [1,2 ${HOME} $${X}');
  });
});

describe('a variable takes the type of its field', () => {
  const method = (fields: string) =>
    `version: 1\nformasPagamentos:\n  - descricao: Pix\n    tipoPagamento: \${TIPO}\n    finalidade: recebimentos\n    destino: caixa-e-bancos\n${fields}`;

  it('numbers, booleans, and an enumeration by label or by code', async () => {
    const result = await load({ 'f.yaml': method('    juros: ${JUROS}\n    taxas:\n      prazo: "${PRAZO}"\n    protect: ${PROTEGER}\n') }, { TIPO: '17', JUROS: '2.5', PRAZO: '30', PROTEGER: 'true' });
    expect(shown(result.diagnostics)).toEqual([]);
    const record = result.desired?.records.get('formasPagamentos')?.[0];
    expect(record?.fields).toMatchObject({ tipoPagamento: 17, juros: 2.5, taxas: { prazo: 30 } });
    expect(record?.tool.protect).toBe(true);
    const byLabel = await load({ 'f.yaml': method('') }, { TIPO: 'pix-dinamico' });
    expect(byLabel.desired?.records.get('formasPagamentos')?.[0]?.fields.tipoPagamento).toBe(17);
  });

  it('names the variable, never its value, when the text is not of the type, at the reference', async () => {
    const result = await load({ 'f.yaml': method('    juros: ${JUROS}\n    protect: ${PROTEGER}\n') }, { TIPO: '@Segr3do!', JUROS: '[x', PROTEGER: 'Segr3do' });
    expect(shown(result.diagnostics)).toEqual([
      'f.yaml:4:20: invalid-value: the value of `${TIPO}` is not a valid value for `tipoPagamento`',
      'f.yaml:7:12: variable-wrong-type: `juros` needs a number, and the value of `${JUROS}` is not one',
      'f.yaml:8:14: variable-wrong-type: `protect` needs `true` or `false`, and the value of `${PROTEGER}` is not one',
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toMatch(/Segr3do|\[x/);
  });

  it('names the variable in a pattern error', async () => {
    const situation = 'version: 1\nsituacoes:\n  - modulo: Vendas\n    nome: Separando\n    herdado: Em aberto\n    cor: ${COR}\n';
    const result = await load({ 's.yaml': situation }, { COR: 'Segr3do' });
    expect(shown(result.diagnostics).filter((d) => !d.includes('unresolved-reference'))).toEqual([
      expect.stringMatching(/^s\.yaml:6:10: invalid-value: the value of `\$\{COR\}` does not have the form `cor` needs/),
    ]);
  });
});

describe('which variable may go where', () => {
  it("refuses erpsync's credential variables in an ordinary field", async () => {
    const result = await load({ 'g.yaml': groupNamed('${BLING_CLIENT_SECRET}') }, {}, false, { BLING_CLIENT_SECRET: 'cs-Segr3do' });
    expect(shown(result.diagnostics)).toEqual([
      "g.yaml:3:11: credential-variable: BLING_CLIENT_SECRET holds one of erpsync's own credentials and may not fill an ordinary field",
    ]);
  });

  it('refuses a variable that feeds a secret field in an ordinary field, in any file of the set', async () => {
    const result = await load({ 'n.yaml': nfse, 'g.yaml': groupNamed('"Grupo ${SENHA}"') }, { SENHA: '98765432' });
    expect(shown(result.diagnostics)).toEqual(['g.yaml:3:18: secret-variable-in-plain-field: SENHA is the variable of a secret field, so it may not also fill an ordinary field']);
  });

  it("refuses a kind's own secret variable in an ordinary field when no secret field uses it, and quotes its value nowhere", async () => {
    const result = await load({ 'c.yaml': 'version: 1\ncategoriasProdutos:\n  - descricao: Olhos\n    categoriaPai: ${NFSE_SENHA_PREFEITURA}\n' }, {}, false, { NFSE_SENHA_PREFEITURA: 'Segr3do-123' });
    expect(shown(result.diagnostics)).toEqual([
      'c.yaml:4:19: secret-variable-in-plain-field: NFSE_SENHA_PREFEITURA is the variable of a secret field, so it may not also fill an ordinary field',
    ]);
    expect(JSON.stringify(result.diagnostics)).not.toContain('Segr3do');
  });

  it('lets validate go on without a secret variable, with a warning', async () => {
    const result = await load({ 'n.yaml': nfse }, {}, true);
    expect(shown(result.diagnostics)).toEqual([
      'n.yaml:6:14: undeclared-variable: variable SENHA is not declared; plan and apply will need it: a manifest reads only the variables its project declares, never other environment variables',
    ]);
    expect(result.desired).toBeDefined();
  });

  it('reports an unset variable once, not again as a type error', async () => {
    const result = await load({ 'f.yaml': 'version: 1\npolicy:\n  maxDeletes: ${LIMITE}\n' }, {});
    expect(shown(result.diagnostics)).toEqual([
      'f.yaml:3:15: undeclared-variable: variable LIMITE is not declared: a manifest reads only the variables its project declares, never other environment variables',
    ]);
  });
});

describe('only the variables the project declares', () => {
  const ciSecrets = { GITHUB_TOKEN: 'ghp_Segr3doDoCI', AWS_SECRET_ACCESS_KEY: 'aws-Segr3do/Key', NPM_TOKEN: 'npm_Segr3do', HOME: '/root/Segr3do' };

  it.each(Object.keys(ciSecrets))('refuses ${%s} at its position, naming the rule, and holds its value nowhere', async (name) => {
    const result = await load({ 'g.yaml': groupNamed(`"Linha \${${name}}"`) }, {}, false, ciSecrets);
    expect(shown(result.diagnostics)).toEqual([
      `g.yaml:3:18: undeclared-variable: variable ${name} is not declared: a manifest reads only the variables its project declares, never other environment variables`,
    ]);
    expect(result.diagnostics[0]?.hint).toContain(`ERPSYNC_VAR_${name} in the environment`);
    expect(result.desired).toBeUndefined();
    expect(JSON.stringify(result)).not.toMatch(/Segr3do/);
  });

  it('reads ${NAME} from ERPSYNC_VAR_NAME, and the target\'s variables win over it', async () => {
    const env = { ERPSYNC_VAR_LOJA: 'Centro', LOJA: 'nao-lida' };
    const fromEnv = await load({ 'g.yaml': groupNamed('"Loja ${LOJA}"') }, {}, false, env);
    expect(shown(fromEnv.diagnostics)).toEqual([]);
    expect(fromEnv.desired?.records.get('gruposProdutos')?.[0]?.fields.nome).toBe('Loja Centro');
    const fromTarget = await load({ 'g.yaml': groupNamed('"Loja ${LOJA}"') }, { LOJA: 'Norte' }, false, env);
    expect(fromTarget.desired?.records.get('gruposProdutos')?.[0]?.fields.nome).toBe('Loja Norte');
  });

  it('refuses the prefix written in the manifest, saying how to write it', async () => {
    const result = await load({ 'g.yaml': groupNamed('${ERPSYNC_VAR_LOJA}') }, {}, false, { ERPSYNC_VAR_LOJA: 'Centro' });
    expect(shown(result.diagnostics)).toEqual(['g.yaml:3:11: prefixed-variable: write `${LOJA}`: erpsync reads it from ERPSYNC_VAR_LOJA itself']);
  });

  it('a default stands in for an undeclared variable, whatever the environment holds', async () => {
    const result = await load({ 'g.yaml': groupNamed('"${GITHUB_TOKEN:-Linha}"') }, {}, false, ciSecrets);
    expect(shown(result.diagnostics)).toEqual([]);
    expect(result.desired?.records.get('gruposProdutos')?.[0]?.fields.nome).toBe('Linha');
  });

  it('a secret field reads the variable it declares from the environment, and no other', async () => {
    const own = 'version: 1\nconfiguracoesNfse:\n  adicionais:\n    cadastroPrefeitura:\n      login: loja\n      senha: ${NFSE_SENHA_PREFEITURA}\n';
    const result = await load({ 'n.yaml': own }, {}, false, { NFSE_SENHA_PREFEITURA: 'Segr3do-1' });
    expect(shown(result.diagnostics)).toEqual([]);
    const settings = result.desired?.records.get('configuracoesNfse')?.[0];
    expect((settings?.fields.adicionais as { cadastroPrefeitura: { senha: unknown } }).cadastroPrefeitura.senha).toBe('Segr3do-1');
    const other = await load({ 'n.yaml': nfse }, {}, false, { SENHA: 'Segr3do-2' });
    expect(shown(other.diagnostics)).toEqual([
      'n.yaml:6:14: undeclared-variable: variable SENHA is not declared: a manifest reads only the variables its project declares, never other environment variables',
    ]);
    expect(other.diagnostics[0]?.hint).toContain('`${NFSE_SENHA_PREFEITURA}`, the variable this field declares');
    expect(JSON.stringify(other)).not.toContain('Segr3do');
  });
});
