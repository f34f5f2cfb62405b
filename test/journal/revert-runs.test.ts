// plan --revert of every way a run is made, on examples/multi-ambiente (each target an emulated
// account over HTTP, its manifests, overlay, envFile and variables as the example has them): a
// fleet apply reverted as a fleet (`plan --revert RUN --all-targets --out DIR`, reviewed like a
// fleet plan, then `apply DIR`); that `apply DIR` run reverted in turn for one store, named by its
// fleet id; a store copied from another with --from-target; and a targeted revert (--only,
// --exclude). After each revert the account equals the account before the run, by its export.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import type { JournalRun } from '../../src/model/journal.js';
import type { Plan } from '../../src/model/plan.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import type { ExportedAccount } from '../support/revert.js';
import { differencesAfterRevert, exportedAccount } from '../support/revert.js';
import { runCli } from '../support/run-cli.js';

const stores = ['homologacao', 'producao', 'copia'] as const;
type StoreName = (typeof stores)[number];
const emulators = new Map<StoreName, Emulator>();
let dir = '';
let env: NodeJS.ProcessEnv = {};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-revert-runs-'));
  cpSync(path.resolve(import.meta.dirname, '../../examples/multi-ambiente'), dir, { recursive: true });
  env = { ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), NFSE_SENHA_PREFEITURA: 'pw-revert-runs-5d1a' };
  for (const name of stores) {
    const emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    emulators.set(name, emulator);
    env[`TOKEN_${name.toUpperCase()}`] = emulator.token;
  }
  // The example's targets, each pointed at its emulated account; `copia` is a store to be copied from homologacao.
  const account = (name: StoreName) => [`    baseUrl: ${emulators.get(name)?.baseUrl ?? ''}`, `    credentials: { tokenEnv: TOKEN_${name.toUpperCase()} }`, '    rate: 1000'];
  writeFileSync(
    path.join(dir, 'erpsync.config.yaml'),
    [
      'version: 1',
      'targets:',
      '  homologacao:',
      ...account('homologacao'),
      '    manifests: [base, overlays/homologacao]',
      '    envFile: ambientes/homologacao.env',
      '    variables: { NFSE_LOGIN_PREFEITURA: "00412345" }',
      '  producao:',
      ...account('producao'),
      '    manifests: base',
      '    variables: { NFSE_LOGIN_PREFEITURA: "lojanova" }',
      '  copia:',
      ...account('copia'),
      '    variables: { NFSE_LOGIN_PREFEITURA: "00412345" }',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  for (const emulator of emulators.values()) await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const run = await runCli(args, { cwd: dir, env });
  expect(run.code, `erpsync ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
  return run;
}

const exported = (store: StoreName, name: string) => exportedAccount({ cwd: dir, env }, `exports/${name}-${store}`, ['--target', store]);

function runs(): JournalRun[] {
  const folder = path.join(dir, '.erpsync/journal');
  return readdirSync(folder)
    .sort()
    .flatMap((file) => parseJournalRun(readFileSync(path.join(folder, file), 'utf8'), file) ?? []);
}
const lastRunOf = (store: StoreName) => runs().filter((r) => r.header.target.name === store).at(-1) as JournalRun;
const savedPlan = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Plan;
const applyRevert = (file: string, store: StoreName) => cli(['apply', file, '--target', store, '--auto-approve']);

const fresh = new Map<StoreName, ExportedAccount>();
const applied = new Map<StoreName, ExportedAccount>();

describe('plan --revert of a fleet apply, of apply DIR, of --from-target, targeted', () => {
  it('reverts a fleet apply as a fleet: one revert per store of it, reviewed as a fleet plan, then applied from the folder', async () => {
    for (const store of stores) fresh.set(store, await exported(store, 'fresh'));
    await cli(['apply', '--target', 'homologacao,producao', '--auto-approve']);
    const [homologacao, producao] = [lastRunOf('homologacao'), lastRunOf('producao')];
    expect(homologacao.header.fleet).toBeDefined();
    expect(producao.header.fleet).toBe(homologacao.header.fleet);
    expect((await cli(['history'])).stdout).toContain(`fleet ${homologacao.header.fleet ?? ''}`);
    for (const store of ['homologacao', 'producao'] as const) applied.set(store, await exported(store, 'applied'));

    // Any store's run names the fleet; copia has no run in it and is left out.
    const planned = await cli(['plan', '--revert', homologacao.header.run, '--all-targets', '--out', 'revert-fleet']);
    expect(planned.stdout).toContain('== homologacao ==');
    expect(planned.stdout).toContain('== producao ==');
    expect(planned.stdout).not.toContain('== copia ==');
    expect(planned.stdout).not.toContain('conflict');
    expect((JSON.parse(readFileSync(path.join(dir, 'revert-fleet/index.json'), 'utf8')) as { stores: { target: string }[] }).stores.map((s) => s.target)).toEqual(['homologacao', 'producao']);
    // producao's PIX, which the run created as the default payment method, cannot be deleted: the revert says so and leaves it.
    expect(savedPlan('revert-fleet/producao.json').warnings).toContain('not undone: formasPagamentos "PIX": it holds the default, which the API neither deletes nor deactivates: give the default to another method first');
    await cli(['apply', 'revert-fleet', '--auto-approve']);
    for (const store of ['homologacao', 'producao'] as const) {
      expect(differencesAfterRevert(fresh.get(store) as ExportedAccount, await exported(store, 'reverted'), savedPlan(`revert-fleet/${store}.json`)), store).toEqual([]);
    }
  });

  it('reverts the apply DIR run for one store, named by its fleet id', async () => {
    const revertRun = lastRunOf('producao');
    expect(revertRun.header.source).toBe('saved-plan');
    await cli(['plan', '--revert', revertRun.header.fleet ?? '', '--target', 'producao', '--out', 'undo-revert.json']);
    // The revert emptied the city-hall password; the journal never holds one, so undoing the revert cannot set it back.
    expect(savedPlan('undo-revert.json').warnings).toContain(
      'configuracoesNfse "configuracoesNfse": the run changed adicionais.cadastroPrefeitura.senha, a secret the journal does not hold: the revert leaves it as it is; set it again through its variable',
    );
    await applyRevert('undo-revert.json', 'producao');
    const expected = new Map(applied.get('producao'));
    const settings = expected.get('configuracoesNfse "configuracoesNfse"') as { adicionais: { cadastroPrefeitura: Record<string, unknown> } };
    expected.set('configuracoesNfse "configuracoesNfse"', { ...settings, adicionais: { ...settings.adicionais, cadastroPrefeitura: { login: settings.adicionais.cadastroPrefeitura.login } } });
    expect(differencesAfterRevert(expected, await exported('producao', 'undone'), savedPlan('undo-revert.json'))).toEqual([]);
  });

  it('reverts a store copied from another with --from-target', async () => {
    await cli(['apply', '--from-target', 'producao', '--target', 'copia', '--auto-approve']);
    const copied = lastRunOf('copia');
    expect(copied.changes.length).toBeGreaterThan(0);
    await cli(['plan', '--revert', copied.header.run, '--target', 'copia', '--out', 'revert-copia.json']);
    await applyRevert('revert-copia.json', 'copia');
    expect(differencesAfterRevert(fresh.get('copia') as ExportedAccount, await exported('copia', 'reverted'), savedPlan('revert-copia.json'))).toEqual([]);
  });

  it('plans a targeted revert: --only and --exclude keep their part, which the rest completes; a pattern naming nothing is a mistake', async () => {
    // producao's last run made it hold the base again; its first run's records are gone since (reverted, then made anew).
    const run = lastRunOf('producao');
    await cli(['plan', '--revert', run.header.run, '--target', 'producao', '--only', 'logisticas', '--out', 'only.json']);
    const only = savedPlan('only.json');
    expect(only.selection?.only).toEqual(['logisticas']);
    expect(new Set(only.changes.map((c) => c.kind))).toEqual(new Set(['logisticas']));
    const excluded = JSON.parse((await cli(['plan', '--revert', run.header.run, '--target', 'producao', '--exclude', 'logisticas', '--json'])).stdout) as Plan;
    expect(excluded.changes.map((c) => c.kind)).not.toContain('logisticas');
    expect(excluded.changes.length).toBeGreaterThan(0);
    const none = await runCli(['plan', '--revert', run.header.run, '--target', 'producao', '--only', 'gruposProdutos/Nada'], { cwd: dir, env });
    expect(none.code).toBe(1);

    await applyRevert('only.json', 'producao');
    const rest = JSON.parse((await cli(['plan', '--revert', run.header.run, '--target', 'producao', '--json'])).stdout) as Plan;
    expect(rest.changes.map((c) => c.kind)).not.toContain('logisticas');
    expect(rest.changes.map((c) => c.key).sort()).toEqual(excluded.changes.map((c) => c.key).sort());
  });
});
