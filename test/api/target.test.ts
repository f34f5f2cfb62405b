// openTarget: the sandbox fallback and its first line, CI refusal, real targets by URL and by
// name from erpsync.config.yaml, and the --debug trace.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTarget, resolveRunTarget } from '../../src/target/open-target.js';
import { captureIO, onCleanup, startEmulator, tempDir } from './support.js';

describe('openTarget', () => {
  it('falls back to the embedded sandbox, says so, and keeps its state between runs', async () => {
    const cwd = await tempDir();
    const io = captureIO({}, cwd);
    const first = await openTarget({}, io);
    expect(first.target).toMatchObject({ mode: 'sandbox', reason: 'no-credentials' });
    expect(first.banner).toMatch(/^Account: Loja Sandbox Ltda \(CNPJ 12\.345\.678\/0001-90\) · local sandbox \(state in \.erpsync\/sandbox\.json; no credentials configured/);
    expect(first.account).toMatchObject({ nome: 'Loja Sandbox Ltda', id: expect.any(String) });
    const { data } = await first.client.request<{ id: number }>({ method: 'POST', path: '/formas-pagamentos', body: { descricao: 'Pix sandbox', tipoPagamento: 17, finalidade: 2, destino: 3 } });
    await first.close();
    expect(existsSync(join(cwd, '.erpsync', 'sandbox.json'))).toBe(true);

    const second = await openTarget({}, io);
    onCleanup(() => second.close());
    const again = await second.client.request<{ descricao: string }>({ method: 'GET', path: `/formas-pagamentos/${data.id}` });
    expect(again.data.descricao).toBe('Pix sandbox');
  });

  it('refuses the fallback under CI, but runs the sandbox when asked explicitly', async () => {
    const cwd = await tempDir();
    await expect(openTarget({}, captureIO({ CI: 'true' }, cwd))).rejects.toMatchObject({ code: 'SANDBOX_REFUSED', exitCode: 3 });
    const opened = await openTarget({ sandbox: true, sandboxState: 'state/s.json' }, captureIO({ CI: 'true' }, cwd));
    onCleanup(() => opened.close());
    expect(opened.banner).toBe('Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · local sandbox (state in state/s.json)');
    expect((await opened.client.request({ method: 'GET', path: '/situacoes/modulos' })).status).toBe(200);
  });

  it('opens a real target from --base-url and BLING_ACCESS_TOKEN, and names its account', async () => {
    const emulator = await startEmulator();
    const cwd = await tempDir();
    const opened = await openTarget({ baseUrl: emulator.baseUrl }, captureIO({ BLING_ACCESS_TOKEN: emulator.token, CI: '1' }, cwd));
    onCleanup(() => opened.close());
    expect(opened.banner).toBe(`Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · ${new URL(emulator.baseUrl).host} · token from BLING_ACCESS_TOKEN`);
    expect(opened.identityReads).toBe(1);
    expect(opened.target).toMatchObject({ mode: 'remote', name: 'default', baseUrl: emulator.baseUrl, credentials: { type: 'token', tokenEnv: 'BLING_ACCESS_TOKEN' } });
    expect((await opened.client.request({ method: 'GET', path: '/formas-pagamentos' })).status).toBe(200);
  });

  it('opens a named target from erpsync.config.yaml with its own token variable and rate', async () => {
    const emulator = await startEmulator();
    const cwd = await tempDir();
    await writeFile(
      join(cwd, 'erpsync.config.yaml'),
      ['version: 1', 'targets:', '  loja-sul:', `    baseUrl: ${emulator.baseUrl}`, '    rate: 40', '    manifests: [lojas/sul]', '    credentials:', '      tokenEnv: SUL_TOKEN', ''].join('\n'),
    );
    const io = captureIO({ SUL_TOKEN: emulator.token }, cwd);
    const opened = await openTarget({ target: 'loja-sul' }, io);
    onCleanup(() => opened.close());
    expect(opened.target).toMatchObject({ name: 'loja-sul', rate: 40, manifests: [join(cwd, 'lojas/sul')] });
    expect((await opened.client.request({ method: 'GET', path: '/formas-pagamentos' })).status).toBe(200);
    await expect(resolveRunTarget({ target: 'loja-norte' }, io)).rejects.toMatchObject({ code: 'CONFIG' });
  });

  it('opens a sandbox target of erpsync.config.yaml under CI: its own state file next to the config, its own account', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'conf'));
    await writeFile(join(cwd, 'conf', 'erp.yaml'), ['version: 1', 'targets:', '  lojas/centro:', '    sandbox: true', '  lojas/sul:', '    sandbox: { state: estado/sul.json }', ''].join('\n'));
    const io = captureIO({ CI: 'true' }, cwd);
    const centro = await openTarget({ target: 'lojas/centro', config: 'conf/erp.yaml' }, io);
    onCleanup(() => centro.close());
    expect(centro.target).toMatchObject({ mode: 'sandbox', name: 'lojas/centro', reason: 'target', stateFile: join(cwd, 'conf', '.erpsync', 'sandbox-lojas.centro.json') });
    expect(centro.banner).toBe('Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · local sandbox (state in conf/.erpsync/sandbox-lojas.centro.json) · target lojas/centro');
    const sul = await openTarget({ target: 'lojas/sul', config: 'conf/erp.yaml' }, io);
    onCleanup(() => sul.close());
    expect(sul.target).toMatchObject({ id: 'sandbox:estado/sul.json', stateFile: join(cwd, 'conf', 'estado', 'sul.json') });
    expect(sul.account.id).not.toBe(centro.account.id);
  });

  it('reports a broken config file with its position, and a missing explicit one', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'conf'));
    await writeFile(join(cwd, 'conf', 'erp.yaml'), 'targets:\n  a: [unclosed\n');
    await expect(resolveRunTarget({ config: 'conf/erp.yaml' }, captureIO({}, cwd))).rejects.toMatchObject({ code: 'CONFIG', details: [expect.stringMatching(/^conf\/erp\.yaml:\d+:\d+: error: /)] });
    // Like manifests: every problem at once, each at its line and column, with a hint for a typo.
    // The schema's refusals and the loopback-only http rule come in the same pass.
    await writeFile(join(cwd, 'conf', 'erp.yaml'), 'version: 1\ntargets:\n  loja:\n    baseUrl: http://api.example\n    rat: 3\n    credentials: { token: abc }\n  "bad name!": {}\n');
    const problems = await resolveRunTarget({ config: 'conf/erp.yaml' }, captureIO({}, cwd)).then(() => [] as string[], (error: { details: string[] }) => error.details);
    expect(problems).toEqual(
      expect.arrayContaining([
        'conf/erp.yaml:4:14: error: insecure-url: refusing to send credentials over plain http to api.example; use https',
        'conf/erp.yaml:5:5: error: unknown-field: unknown field `rat`',
        '    hint: did you mean `rate`?',
        'conf/erp.yaml:6:20: error: refused-field: `token`: secrets do not belong in the config file (it is committed to git): name the variable that holds it instead: tokenEnv, clientSecretEnv',
      ]),
    );
    expect(problems.join('\n')).toContain('conf/erp.yaml:7:3');
    await expect(resolveRunTarget({ config: 'missing.yaml' }, captureIO({}, cwd))).rejects.toMatchObject({ code: 'CONFIG' });
  });

  it('traces every request on stderr with --debug', async () => {
    const emulator = await startEmulator();
    const cwd = await tempDir();
    const io = captureIO({ BLING_ACCESS_TOKEN: emulator.token }, cwd);
    const opened = await openTarget({ baseUrl: emulator.baseUrl, debug: true }, io);
    onCleanup(() => opened.close());
    await opened.client.request({ method: 'GET', path: '/formas-pagamentos', query: { pagina: 1 } });
    // First the way the requests go (no proxy variable in this environment), then each request.
    expect(io.err()).toMatch(/^debug: proxy: http:\/\/127\.0\.0\.1:\d+ direct \(no HTTP_PROXY is set\)\ndebug: #1\.1 GET \/empresas\/me\/dados-basicos →\ndebug: #1\.1 GET \/empresas\/me\/dados-basicos ← 200 \(\d+ ms\)\ndebug: #2\.1 GET \/formas-pagamentos\?pagina=1 →\ndebug: #2\.1 GET \/formas-pagamentos\?pagina=1 ← 200 \(\d+ ms\)\n$/);
  });
});
