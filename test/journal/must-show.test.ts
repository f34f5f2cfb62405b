// The journal's "must show", end to end: apply, a hand edit in the ERP (the emulator's state),
// drift (which names the ERP and the last run), apply again, then an apply in a real child process
// killed with SIGKILL right after its first applied change: the journal holds all three runs
// correctly — the killed one as interrupted, with the change it reported — and no journal file
// holds the token or the NFS-e password in any form.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { parseJournalRun } from '../../src/state/journal-evidence.js';
import { runCli } from '../support/run-cli.js';
import { leakForms, leaksIn } from '../reliability/support/leaks.js';

const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
const token = 'tok-JOURNAL-5c1e9a7b3d2f';
const password = 'pw-JOURNAL-8e2d6b4a1c9f';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

const manifest = (groups: readonly string[]) => `version: 1
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: 1
configuracoesNfse:
  adicionais:
    cadastroPrefeitura:
      login: loja
      senha: \${NFSE_SENHA_PREFEITURA}
gruposProdutos:
${groups.map((g) => `  - nome: ${g}\n`).join('')}`;

beforeAll(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0, token });
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-journal-must-'));
  env = { BLING_ACCESS_TOKEN: token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', ERPSYNC_LOCK_DIR: path.join(dir, '.locks'), NFSE_SENHA_PREFEITURA: password, USER: 'maria' };
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function journal() {
  const folder = path.join(dir, '.erpsync/journal');
  return readdirSync(folder)
    .sort()
    .map((name) => ({ file: path.join(folder, name), run: parseJournalRun(readFileSync(path.join(folder, name), 'utf8'), name) }));
}

/** `apply --json` in a child process, killed with SIGKILL as soon as it reports its first applied change. */
async function applyKilledAfterFirstChange(): Promise<{ signal: NodeJS.Signals | null; reported: string }> {
  // Slow pacing, so the run is still going when the first change is reported.
  const child = spawn(process.execPath, [bin, 'apply', 'm.yaml', '--auto-approve', '--json', '--concurrency', '1'], { cwd: dir, env: { ...env, PATH: process.env.PATH, HOME: dir, ERPSYNC_RATE: '4' } });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let reported = '';
  for await (const line of createInterface({ input: child.stdout })) {
    const event = JSON.parse(line) as { type: string; change?: { key: string }; outcome?: { status: string } };
    if (event.type === 'change-end' && event.outcome?.status === 'applied') {
      reported = event.change?.key ?? '';
      child.kill('SIGKILL');
      break;
    }
  }
  return { signal: await exited, reported };
}

describe('the journal of three runs, one killed midway', () => {
  it('holds every run as it went, names the ERP for a hand edit, and no secret', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), manifest(['Maquiagem', 'Perfumaria']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const [first] = journal();

    // A hand edit in the ERP: the boleto's interest.
    const boleto = emulator.snapshot().formasPagamentos.find((f) => f.descricao === 'Boleto da loja');
    const edited = await fetch(`${emulator.baseUrl}/formas-pagamentos/${boleto?.id}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...boleto, juros: 5 }) });
    expect(edited.status).toBeLessThan(300);

    // Drift attributes it to the ERP and names the last run, in text and JSON.
    const drift = await runCli(['drift', 'm.yaml'], { cwd: dir, env });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain(`origin: changed in the ERP since erpsync run ${first?.run?.header.run}`);
    const driftJson = JSON.parse((await runCli(['drift', 'm.yaml', '--json'], { cwd: dir, env })).stdout) as { findings: { key: string; attribution?: { by: string; run: string } }[] };
    expect(driftJson.findings.find((f) => f.key === 'Boleto da loja')?.attribution).toMatchObject({ by: 'erp', run: first?.run?.header.run });

    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    expect(emulator.snapshot().formasPagamentos.find((f) => f.descricao === 'Boleto da loja')?.juros).toBe(1);

    writeFileSync(path.join(dir, 'm.yaml'), manifest(['Maquiagem', 'Perfumaria', ...Array.from({ length: 12 }, (_, i) => `Linha ${i}`)]));
    const killed = await applyKilledAfterFirstChange();
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.reported).toMatch(/^Linha /);

    const runs = journal();
    expect(runs).toHaveLength(3);
    const [one, two, three] = runs.map((r) => r.run);
    expect(one?.status).toBe('finished');
    expect(one?.changes.filter((c) => c.outcome === 'applied').map((c) => c.key)).toEqual(expect.arrayContaining(['Maquiagem', 'Perfumaria', 'Boleto da loja', 'configuracoesNfse']));
    expect(two?.status).toBe('finished');
    expect(two?.changes).toHaveLength(1);
    expect(two?.changes[0]).toMatchObject({ action: 'update', key: 'Boleto da loja', outcome: 'applied', before: { fields: { juros: 5 } }, written: { juros: 1 } });
    expect(two?.changes[0]?.fields).toContainEqual({ path: 'juros', before: 5, after: 1 });
    // The killed run: its header and the change it reported, no closing line.
    expect(three?.status).toBe('interrupted');
    expect(three?.end).toBeUndefined();
    expect(three?.header.changes).toBe(12);
    expect(three?.changes.find((c) => c.key === killed.reported)).toMatchObject({ action: 'create', outcome: 'applied' });
    expect(three?.changes.length).toBeLessThan(12);
    const history = await runCli(['history'], { cwd: dir, env });
    expect(history.stdout.trim().split('\n').map((line) => line.split('  ')[3])).toEqual(['finished', 'finished', 'interrupted']);
    const shown = await runCli(['history', three?.header.run ?? ''], { cwd: dir, env });
    expect(shown.stdout).toContain('interrupted (no closing line: the run was killed or crashed midway)');

    // No secret in any journal file, in any form; the password did change in the first run.
    const forbidden = [token, password].flatMap((secret) => leakForms(secret));
    for (const { file } of runs) expect(leaksIn(readFileSync(file, 'latin1'), forbidden), file).toEqual([]);
    expect(readFileSync(runs[0]?.file ?? '', 'utf8')).toContain('"path":"adicionais.cadastroPrefeitura.senha","sensitive":true');
  });
});
