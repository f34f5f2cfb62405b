import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE, defaultSandboxState, normalizeBaseUrl } from '../api/index.js';
import type { SandboxTarget, TargetsConfig } from '../api/index.js';
import { backendChoiceOf, describeTarget, egressOf, resolveLoginTarget, resolveTarget } from './resolve-target.js';
import type { ResolveInput } from './resolve-target.js';

const cwd = '/repo';
const none = (): boolean => false;

function input(overrides: Partial<ResolveInput>): ResolveInput {
  return { request: {}, env: {}, cwd, fileExists: none, ...overrides };
}

// As src/manifest/load-config.ts maps a checked erpsync.config.yaml (its tests cover the file itself).
const config: TargetsConfig = {
  dir: '/repo',
  targets: {
    producao: { baseUrl: 'https://api.bling.com.br/Api/v3', rate: 2, manifests: ['stores/main'], credentials: { tokenEnv: 'PROD_TOKEN' } },
    filial: { credentials: { clientId: 'abc', clientSecretEnv: 'FILIAL_SECRET', file: 'secrets/filial.json' }, maxRequests: 500, dailyQuota: 5_000 },
    vitrine: { credentials: { tokenEnv: 'VITRINE_TOKEN' }, reserve: 1 },
    'lojas/centro': { sandbox: { state: defaultSandboxState('lojas/centro') }, manifests: ['base', 'overlays/centro'], variables: { LOJA: 'Centro' }, envFile: 'centro.env' },
    'lojas/sul': { sandbox: { state: 'sandboxes/sul.json' }, rate: 5, maxRequests: 900 },
  },
};

const account = { id: 'a1', nome: 'Loja Nova Ltda', cnpj: '12.345.678/0001-90' };

describe('resolving the target', () => {
  it('falls back to the sandbox when nothing is configured, and says so', () => {
    const target = resolveTarget(input({}));
    expect(target).toMatchObject({ mode: 'sandbox', reason: 'no-credentials', stateFile: '/repo/.erpsync/sandbox.json', id: 'sandbox:.erpsync/sandbox.json' });
    expect(target.rate).toBe(Number.POSITIVE_INFINITY);
    expect(describeTarget(target, cwd, account)).toBe(
      'Account: Loja Nova Ltda (CNPJ 12.345.678/0001-90) · local sandbox (state in .erpsync/sandbox.json; no credentials configured: set BLING_ACCESS_TOKEN or run `erpsync login` to use a real account)',
    );
  });

  it('refuses the silent fallback under CI, unless --sandbox', () => {
    expect(() => resolveTarget(input({ env: { CI: 'true' } }))).toThrow(expect.objectContaining({ code: 'SANDBOX_REFUSED', exitCode: 3 }));
    expect(resolveTarget(input({ env: { CI: 'false' } })).mode).toBe('sandbox');
    const target = resolveTarget(input({ env: { CI: '1' }, request: { sandbox: true, sandboxState: 'tmp/s.json', rate: 5 } }));
    expect(target).toMatchObject({ mode: 'sandbox', reason: 'requested', stateFile: '/repo/tmp/s.json', rate: 5 });
  });

  it('uses BLING_ACCESS_TOKEN without ever holding its value', () => {
    const target = resolveTarget(input({ env: { BLING_ACCESS_TOKEN: 'tok-123456' }, request: { rate: 1.5, maxRequests: 100 } }));
    expect(target).toEqual({
      mode: 'remote',
      name: 'default',
      id: 'https://api.bling.com.br/Api/v3',
      baseUrl: 'https://api.bling.com.br/Api/v3',
      credentials: { type: 'token', tokenEnv: 'BLING_ACCESS_TOKEN' },
      rate: 1.5,
      maxRequests: 100,
      dailyQuota: { perDay: 120_000, countFile: '/repo/.erpsync/requests-per-day.json' },
      backend: { kind: 'local' },
      egress: 'default',
      proxy: {},
    });
    expect(JSON.stringify(target)).not.toContain('tok-123456');
  });

  it('uses the OAuth credentials file when it exists', () => {
    const target = resolveTarget(input({ request: { baseUrl: 'http://127.0.0.1:9000/Api/v3' }, fileExists: (p) => p === '/repo/.erpsync/credentials.json' }));
    expect(target).toMatchObject({
      mode: 'remote',
      baseUrl: 'http://127.0.0.1:9000/Api/v3',
      credentials: { type: 'oauth', file: '/repo/.erpsync/credentials.json', tokenUrl: 'http://127.0.0.1:9000/Api/v3/oauth/token' },
    });
  });

  it('errors instead of falling back when a URL was asked for explicitly without credentials', () => {
    expect(() => resolveTarget(input({ request: { baseUrl: 'https://example.test/Api/v3' } }))).toThrow(expect.objectContaining({ code: 'AUTH_MISSING' }));
    expect(() => resolveTarget(input({ request: { baseUrl: 'http://example.test/Api/v3' }, env: { BLING_ACCESS_TOKEN: 'x' } }))).toThrow(
      expect.objectContaining({ code: 'INSECURE_URL' }),
    );
  });

  it('picks named targets from the config with their own credentials, rate and manifests', () => {
    const prod = resolveTarget(input({ request: { target: 'producao' }, env: { PROD_TOKEN: 'p' }, config }));
    expect(prod).toMatchObject({ mode: 'remote', name: 'producao', rate: 2, manifests: ['/repo/stores/main'], credentials: { type: 'token', tokenEnv: 'PROD_TOKEN' } });
    const filial = resolveTarget(input({ request: { target: 'filial' }, config, fileExists: (p) => p === '/repo/secrets/filial.json' }));
    expect(filial).toMatchObject({
      name: 'filial',
      maxRequests: 500,
      rate: DEFAULT_RATE,
      dailyQuota: { perDay: 5_000 },
      credentials: { type: 'oauth', clientId: 'abc', clientSecretEnv: 'FILIAL_SECRET', authorizeUrl: 'https://www.bling.com.br/Api/v3/oauth/authorize' },
    });
    // A reserve leaves that much of the account's 3 req/s to its other integrations, and as large a share of its day.
    expect(resolveTarget(input({ request: { target: 'vitrine' }, env: { VITRINE_TOKEN: 'v' }, config }))).toMatchObject({ rate: 2, dailyQuota: { perDay: 80_000 } });
    expect(prod).toMatchObject({ dailyQuota: { perDay: 120_000, countFile: '/repo/.erpsync/requests-per-day.json' } });
    expect(() => resolveTarget(input({ request: { target: 'producao' }, config }))).toThrow(expect.objectContaining({ code: 'AUTH_MISSING' }));
    expect(() => resolveTarget(input({ request: { target: 'nope' }, config }))).toThrow(expect.objectContaining({ code: 'CONFIG' }));
  });

  it('rejects contradictory flags (a malformed value is refused by the flag table)', () => {
    expect(() => resolveTarget(input({ request: { sandbox: true, target: 'producao' }, config }))).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });

  it('tells login where to store credentials, per target', () => {
    expect(resolveLoginTarget({ request: {}, env: {}, cwd })).toMatchObject({ file: '/repo/.erpsync/credentials.json', tokenUrl: 'https://api.bling.com.br/Api/v3/oauth/token' });
    expect(resolveLoginTarget({ request: { target: 'filial' }, env: {}, cwd, config })).toMatchObject({ name: 'filial', file: '/repo/secrets/filial.json', clientId: 'abc' });
    expect(resolveLoginTarget({ request: { target: 'producao' }, env: {}, cwd, config }).file).toBe('/repo/.erpsync/credentials-producao.json');
  });
});

describe('sandbox targets of erpsync.config.yaml', () => {
  it('resolve to a sandbox account of their own, named by the target, with the entry\'s manifests and variables', () => {
    const centro = resolveTarget(input({ request: { target: 'lojas/centro' }, config }));
    expect(centro).toEqual({
      mode: 'sandbox',
      name: 'lojas/centro',
      id: 'sandbox:.erpsync/sandbox-lojas.centro.json',
      stateFile: '/repo/.erpsync/sandbox-lojas.centro.json',
      reason: 'target',
      rate: Number.POSITIVE_INFINITY,
      maxRequests: undefined,
      manifests: ['/repo/base', '/repo/overlays/centro'],
      variables: { LOJA: 'Centro' },
      envFile: '/repo/centro.env',
      journal: '/repo/.erpsync/journal',
      configDir: '/repo',
      backend: { kind: 'local' },
      egress: 'default',
    });
    expect(describeTarget(centro, cwd, account)).toBe('Account: Loja Nova Ltda (CNPJ 12.345.678/0001-90) · local sandbox (state in .erpsync/sandbox-lojas.centro.json) · target lojas/centro');
    const sul = resolveTarget(input({ request: { target: 'lojas/sul' }, config })) as SandboxTarget;
    expect(sul).toMatchObject({ name: 'lojas/sul', id: 'sandbox:sandboxes/sul.json', stateFile: '/repo/sandboxes/sul.json', rate: 5, maxRequests: 900 });
    expect(resolveTarget(input({ request: { target: 'lojas/sul', rate: 2, maxRequests: 10 }, config }))).toMatchObject({ rate: 2, maxRequests: 10 });
    expect(describeTarget({ ...sul, server: 'http://127.0.0.1:4000/Api/v3' }, cwd, account)).toBe(
      'Account: Loja Nova Ltda (CNPJ 12.345.678/0001-90) · sandbox server 127.0.0.1:4000 (state in sandboxes/sul.json) · target lojas/sul',
    );
  });

  it('need no credentials and run under CI: the config asks for them explicitly', () => {
    expect(resolveTarget(input({ request: { target: 'lojas/centro' }, env: { CI: 'true', BLING_ACCESS_TOKEN: 'ignored' }, config }))).toMatchObject({ mode: 'sandbox', reason: 'target' });
  });

  it('refuse what only a real account has: --base-url, login; --sandbox with --target points at the config', () => {
    expect(() => resolveTarget(input({ request: { target: 'lojas/centro', baseUrl: 'https://api.example/Api/v3' }, config }))).toThrow(expect.objectContaining({ code: 'USAGE' }));
    expect(() => resolveLoginTarget({ request: { target: 'lojas/centro' }, env: {}, cwd, config })).toThrow(/is a sandbox account/);
    expect(() => resolveTarget(input({ request: { sandbox: true, target: 'producao' }, config }))).toThrow(expect.objectContaining({ details: [expect.stringContaining('sandbox: true')] }));
  });

  it('keep one state file per target: a / of the name becomes a ., which no name holds', () => {
    expect(defaultSandboxState('lojas/centro')).toBe('.erpsync/sandbox-lojas.centro.json');
    expect(defaultSandboxState('lojas-centro')).toBe('.erpsync/sandbox-lojas-centro.json');
  });
});

describe('base URLs', () => {
  it('are kept without a trailing slash, and only over https or on loopback', () => {
    expect(normalizeBaseUrl('https://api.bling.com.br/Api/v3/')).toBe('https://api.bling.com.br/Api/v3');
    expect(normalizeBaseUrl('http://127.0.0.1:9000/Api/v3')).toBe('http://127.0.0.1:9000/Api/v3');
    expect(() => normalizeBaseUrl('http://prod.example/Api/v3')).toThrow(expect.objectContaining({ code: 'INSECURE_URL' }));
  });
});

describe('the state backend and the egress name, decided once', () => {
  it('is local by default, postgres from the config or ERPSYNC_BACKEND, with the variables it names', () => {
    expect(backendChoiceOf(undefined, {})).toEqual({ kind: 'local' });
    expect(backendChoiceOf({ backend: { postgres: {} } }, {})).toEqual({ kind: 'postgres', urlEnv: 'ERPSYNC_DATABASE_URL', keyEnv: 'ERPSYNC_STATE_KEY', schema: 'erpsync' });
    expect(backendChoiceOf({ backend: { postgres: { urlEnv: 'DB', keyEnv: 'K', schema: 'loja' } } }, { ERPSYNC_BACKEND_SCHEMA: 'outra' })).toEqual({ kind: 'postgres', urlEnv: 'DB', keyEnv: 'K', schema: 'outra' });
    expect(backendChoiceOf({ backend: { postgres: {} } }, { ERPSYNC_BACKEND: 'local' })).toEqual({ kind: 'local' });
    expect(backendChoiceOf({ backend: 'local' }, { ERPSYNC_BACKEND: 'postgres' })).toMatchObject({ kind: 'postgres' });
    expect(() => backendChoiceOf(undefined, { ERPSYNC_BACKEND: 'mysql' })).toThrow(/ERPSYNC_BACKEND/);
  });

  it('takes the egress name from ERPSYNC_EGRESS, else the config, else `default`, and refuses a name that is not one', () => {
    expect(egressOf(undefined, {})).toBe('default');
    expect(egressOf({ egress: 'escritorio' }, {})).toBe('escritorio');
    expect(egressOf({ egress: 'escritorio' }, { ERPSYNC_EGRESS: 'nuvem' })).toBe('nuvem');
    expect(() => egressOf(undefined, { ERPSYNC_EGRESS: 'a b' })).toThrow(/ERPSYNC_EGRESS/);
  });

  it('with postgres, finds a named target\'s login in the backend, while the default target keeps to the sandbox unless an OAuth app is named', () => {
    const env = { ERPSYNC_BACKEND: 'postgres' };
    expect(resolveTarget(input({ env, request: { target: 'filial' }, config }))).toMatchObject({ mode: 'remote', credentials: { type: 'oauth', file: '/repo/secrets/filial.json' }, backend: { kind: 'postgres' } });
    expect(resolveTarget(input({ env, request: {} }))).toMatchObject({ mode: 'sandbox', reason: 'no-credentials' });
    expect(resolveTarget(input({ env: { ...env, BLING_CLIENT_ID: 'app' }, request: {} }))).toMatchObject({ mode: 'remote', credentials: { type: 'oauth' } });
  });
});
