// erpsync.config.yaml has one validator, its schema: every refusal is a positioned diagnostic,
// all of them in one pass, and what passes maps to the targets without further checks.
import { describe, expect, it } from 'vitest';
import { formatPosition } from '../model/diagnostics.js';
import { ownersOf } from '../api/index.js';
import { readTargetsConfig } from './load-config.js';

const file = 'erpsync.config.yaml';

function read(lines: string[]) {
  return readTargetsConfig(file, Buffer.from(`${lines.join('\n')}\n`), '/repo');
}

/** Each diagnostic as `file:line:col code message`. */
function problems(lines: string[]): string[] {
  const result = read(lines);
  expect(result.config).toBeUndefined();
  return result.diagnostics.map((d) => `${formatPosition(d.position)} ${d.code} ${d.message}`);
}

describe('the targets of erpsync.config.yaml', () => {
  it('are optional', () => {
    expect(readTargetsConfig(file, Buffer.from(''), '/repo')).toEqual({ config: { dir: '/repo', targets: {} }, diagnostics: [] });
    expect(read(['version: 1']).config).toEqual({ dir: '/repo', targets: {} });
  });

  it('map to the resolver\'s entries: the base URL normalized, one path as a list, variables as text, a sandbox with its state file', () => {
    const { config, diagnostics } = read([
      'version: 1',
      'targets:',
      '  producao:',
      '    description: Loja principal',
      '    baseUrl: https://api.bling.com.br/Api/v3/',
      '    manifests: stores/main',
      '    variables: { PARCELAS: 3, ATIVO: true, NOME: Loja }',
      '    credentials: { tokenEnv: PROD_TOKEN, tokenUrl: "http://localhost:8080/token" }',
      '    rate: 2',
      '  lojas/centro:',
      '    sandbox: true',
      '    manifests: [base, overlays/centro]',
      '  lojas/sul:',
      '    sandbox: { state: sandboxes/sul.json }',
      '    maxRequests: 900',
      '  desligado:',
      '    sandbox: false',
      '    baseUrl: https://api.example/Api/v3',
    ]);
    expect(diagnostics).toEqual([]);
    expect(config).toEqual({
      dir: '/repo',
      targets: {
        producao: {
          description: 'Loja principal',
          baseUrl: 'https://api.bling.com.br/Api/v3',
          manifests: ['stores/main'],
          variables: { PARCELAS: '3', ATIVO: 'true', NOME: 'Loja' },
          credentials: { tokenEnv: 'PROD_TOKEN', tokenUrl: 'http://localhost:8080/token' },
          rate: 2,
        },
        'lojas/centro': { sandbox: { state: '.erpsync/sandbox-lojas.centro.json' }, manifests: ['base', 'overlays/centro'] },
        'lojas/sul': { sandbox: { state: 'sandboxes/sul.json' }, maxRequests: 900 },
        desligado: { baseUrl: 'https://api.example/Api/v3' },
      },
    });
  });

  it('refuses secrets written into the file, each at its key, whatever the case', () => {
    expect(problems(['targets:', '  p:', '    credentials:', '      clientSecret: x', '      Token: y', '      password: z'])).toEqual([
      'erpsync.config.yaml:4:7 refused-field `clientSecret`: secrets do not belong in the config file (it is committed to git): name the variable that holds it instead: tokenEnv, clientSecretEnv',
      'erpsync.config.yaml:5:7 refused-field `Token`: secrets do not belong in the config file (it is committed to git): name the variable that holds it instead: tokenEnv, clientSecretEnv',
      'erpsync.config.yaml:6:7 refused-field `password`: secrets do not belong in the config file (it is committed to git): name the variable that holds it instead: tokenEnv, clientSecretEnv',
    ]);
  });

  it('names every offending key at its line and column, all in one pass', () => {
    const result = read([
      'targets:',
      '  p:',
      '    baseURL: https://api.example',
      '    rate: -1',
      '    reserve: 3',
      '    maxRequests: 1.5',
      '    manifests: 5',
      '    envFile: ""',
      '    description: 7',
      '    variables: { "not a var": x, LISTA: [1] }',
      '    credentials: { tokenEnv: not a var, clientId: "", cookie: c }',
      '  "bad name": {}',
    ]);
    expect(result.diagnostics.map((d) => `${formatPosition(d.position)} ${d.code} ${d.message}${d.hint ? ` (${d.hint})` : ''}`)).toEqual([
      'erpsync.config.yaml:3:5 unknown-field unknown field `baseURL` (did you mean `baseUrl`?)',
      'erpsync.config.yaml:4:11 invalid-value `rate` must be > 0',
      'erpsync.config.yaml:5:14 invalid-value `reserve` must be < 3',
      'erpsync.config.yaml:6:18 wrong-type `maxRequests` must be a whole number, found number `1.5`',
      'erpsync.config.yaml:7:16 wrong-type `manifests` must be text or a list, found number `5`',
      'erpsync.config.yaml:8:14 invalid-value `envFile` must not be empty',
      'erpsync.config.yaml:9:18 wrong-type `description` must be text, found number `7`',
      'erpsync.config.yaml:10:18 invalid-name `not a var` is not a valid name under `variables` (names have the form ^[A-Za-z_][A-Za-z0-9_]*$)',
      'erpsync.config.yaml:10:41 wrong-type `LISTA` must be text or a number or true or false, found a list',
      'erpsync.config.yaml:11:30 invalid-value the text `not a var` does not have the form `tokenEnv` needs (^[A-Za-z_][A-Za-z0-9_]*$)',
      'erpsync.config.yaml:11:51 invalid-value `clientId` must not be empty',
      'erpsync.config.yaml:11:55 unknown-field unknown field `cookie`',
      'erpsync.config.yaml:12:3 invalid-name `bad name` is not a valid name under `targets` (names have the form ^[A-Za-z0-9][A-Za-z0-9_-]*(/[A-Za-z0-9][A-Za-z0-9_-]*)*$)',
    ]);
    expect(problems(['targets: []'])).toEqual(['erpsync.config.yaml:1:10 wrong-type `targets` must be a mapping, found a list']);
    expect(problems(['version: 2', 'targets:', '  p: [a]'])).toEqual([
      'erpsync.config.yaml:1:10 invalid-value `version` must be 1, found number `2`',
      'erpsync.config.yaml:3:6 wrong-type `p` must be a mapping, found a list',
    ]);
  });

  it('accepts plain http only to a loopback host, and no user or password in a URL', () => {
    expect(
      problems([
        'targets:',
        '  p:',
        '    baseUrl: http://prod.example/Api/v3',
        '    credentials:',
        '      tokenUrl: https://user:senha@auth.example/token',
        '      authorizeUrl: ftp://auth.example/authorize',
        '  q:',
        '    baseUrl: "https://"',
      ]),
    ).toEqual([
      'erpsync.config.yaml:3:14 insecure-url refusing to send credentials over plain http to prod.example; use https',
      'erpsync.config.yaml:5:17 insecure-url the `tokenUrl` must not embed a user name or password',
      'erpsync.config.yaml:6:21 invalid-value the text `ftp://auth.example/authorize` does not have the form `authorizeUrl` needs (^https?://)',
      'erpsync.config.yaml:8:14 invalid-value the `baseUrl` \'https://\' is not a valid URL',
    ]);
    expect(read(['targets:', '  local:', '    baseUrl: http://127.0.0.1:9000/Api/v3']).diagnostics).toEqual([]);
  });

  it('takes owners per target and per group of targets, and names each bad owner or empty group at its line and column', () => {
    const { config, diagnostics } = read([
      'owners:',
      '  "lojas/*": ["@agencia/suporte", maria]',
      'targets:',
      '  lojas/centro:',
      '    owners: [joao, "@maria", joao@loja.example]',
      '    sandbox: true',
      '  producao: { sandbox: true }',
    ]);
    expect(diagnostics).toEqual([]);
    expect(config?.owners).toEqual({ 'lojas/*': ['@agencia/suporte', 'maria'] });
    expect(ownersOf(config, 'lojas/centro')).toEqual(['joao', '@maria', 'joao@loja.example', '@agencia/suporte']);
    expect(ownersOf(config, 'producao')).toEqual([]);
    expect(
      problems([
        'owners:',
        '  "lojas/*": [maria]',
        '  "filiais/**": [ana]',
        '  "lojas/*x": [ana]',
        'targets:',
        '  lojas/centro:',
        '    owners: [joao, joao, "maria silva", "<b>", "@a/"]',
        '    sandbox: true',
        '  producao:',
        '    owners: []',
        '    sandbox: true',
      ]),
    ).toEqual([
      'erpsync.config.yaml:3:17 unknown-group the owners group `filiais/**` matches no target',
      'erpsync.config.yaml:4:15 unknown-group the owners group `lojas/*x` matches no target',
      'erpsync.config.yaml:7:20 invalid-value `owners` holds `joao` twice (items 1 and 2)',
      expect.stringMatching(/^erpsync\.config\.yaml:7:26 invalid-value the text `maria silva` does not have the form `owners` needs/),
      expect.stringMatching(/^erpsync\.config\.yaml:7:41 invalid-value the text `<b>` does not have the form `owners` needs/),
      expect.stringMatching(/^erpsync\.config\.yaml:7:48 invalid-value the text `@a\/` does not have the form `owners` needs/),
      'erpsync.config.yaml:10:13 invalid-value `owners` must not be an empty list',
    ]);
  });

  it('refuses a base URL or credentials on a sandbox target, and unknown sandbox settings', () => {
    const conflict = 'a sandbox target has no base URL or credentials: remove `sandbox` to deploy to a real account, or this key to try the target in a sandbox';
    expect(problems(['targets:', '  teste:', '    sandbox: true', '    baseUrl: https://api.example/Api/v3', '    credentials: { tokenEnv: T }', '  outro:', '    sandbox: { state: "", porta: 1 }'])).toEqual([
      `erpsync.config.yaml:4:5 refused-field \`baseUrl\`: ${conflict}`,
      `erpsync.config.yaml:5:5 refused-field \`credentials\`: ${conflict}`,
      'erpsync.config.yaml:7:23 invalid-value `state` must not be empty',
      'erpsync.config.yaml:7:27 unknown-field unknown field `porta`',
    ]);
  });

  it('takes a fixed number of concurrency groups, 1 to 1000, each mistake at its place', () => {
    expect(read(['concurrency: { groups: 16 }', 'targets: {}']).config?.concurrency).toEqual({ groups: 16 });
    expect(problems(['concurrency:', '  groups: 0', 'targets: {}'])).toEqual(['erpsync.config.yaml:2:11 invalid-value `groups` must be >= 1']);
    expect(problems(['concurrency:', '  groups: 1001'])).toEqual(['erpsync.config.yaml:2:11 invalid-value `groups` must be <= 1000']);
    expect(problems(['concurrency:', '  groups: 2.5'])).toEqual(['erpsync.config.yaml:2:11 wrong-type `groups` must be a whole number, found number `2.5`']);
    expect(problems(['concurrency:', '  grupos: 8'])).toEqual(['erpsync.config.yaml:1:1 missing-field missing required field `groups`', 'erpsync.config.yaml:2:3 unknown-field unknown field `grupos`']);
  });
});
