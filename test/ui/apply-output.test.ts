// Output without the terminal UI, through the CLI against the emulator: `apply --json` is NDJSON
// (one event per line, nothing else on stdout), CI gets plain lines even on a terminal and must
// pass --auto-approve, NO_COLOR keeps a terminal's plan plain, and `plan --format markdown` keeps
// the exit code of --detailed-exitcode.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, groupsManifest, openTestAccount } from '../support/account.js';
import { eventually } from '../support/eventually.js';
import { runCli } from '../support/run-cli.js';
import { runCliOnTerminal } from './support/terminal.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

const groups = groupsManifest;
const groupNames = () => groupNamesOf(emulator);

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-out-'));
});
afterEach(() => closeTestAccount({ emulator, dir }));

describe('apply --json', () => {
  it('prints one JSON event per line and nothing else', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem', 'Perfumaria']));
    const run = await runCli(['apply', 'm.yaml', '--json', '--auto-approve'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('\u001B');
    const events = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    expect(events.map((e) => e.type)).toEqual(['plan', 'apply-start', 'wave-start', 'change-start', 'change-start', 'change-end', 'change-end', 'apply-end', 'verify-start', 'verify-end']);
    expect(events[0]).toMatchObject({ summary: { create: 2, change: 0, remove: 0, blocked: 0 }, target: { mode: 'remote' } });
    const ends = events.filter((e) => e.type === 'change-end');
    expect(ends.map((e) => (e.outcome as { status: string }).status)).toEqual(['applied', 'applied']);
    expect(events[7]).toMatchObject({ applied: 2, failed: 0, interrupted: false, requests: 2 });
    expect(events[9]).toMatchObject({ notConverged: [] });
    for (const event of events) expect(typeof event.elapsedMs).toBe('number');
    expect(groupNames()).toEqual(['Maquiagem', 'Perfumaria']);
  });

  it('sends the sandbox banner to stderr, and refuses to ask without a terminal (exit 3)', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const sandbox = await runCli(['apply', 'm.yaml', '--json'], { cwd: dir, env: {} });
    expect(sandbox.code).toBe(3);
    expect(sandbox.stderr).toContain('Account: Loja Sandbox Ltda (CNPJ 12.345.678/0001-90) · local sandbox');
    expect(sandbox.stderr).toContain('--auto-approve');
    expect(JSON.parse(sandbox.stdout.trim())).toMatchObject({ type: 'plan' });
  });
});

describe('a keyboard without the terminal UI', () => {
  it('asks on stderr with a plain prompt when stdout is not a terminal', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const run = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env, stdoutIsTerminal: false });
    await run.waitFor('Plan: 1 to create');
    await eventually(() => expect(run.stderr.text).toContain('Apply these changes to Loja Sandbox Ltda (CNPJ 12.345.678/0001-90), target default? Type yes to apply:'));
    run.stdin.write('yes\n');
    expect(await run.exit).toBe(0);
    expect(run.stdout.raw).not.toContain('\u001B');
    expect(run.stdout.raw).toContain('Apply: 1 applied, 0 failed, 0 skipped, 0 blocked.');
    expect(groupNames()).toEqual(['Maquiagem']);
  });

  it('changes nothing when interrupted before the apply starts', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const controller = new AbortController();
    controller.abort(new Error('received SIGINT'));
    const run = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env, signal: controller.signal });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('interrupted before applying; nothing was changed');
    expect(groupNames()).toEqual([]);
  });
});

describe('CI and NO_COLOR', () => {
  it('under CI a terminal gets plain lines without a single escape code, and no prompt', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const refused = runCliOnTerminal(['apply', 'm.yaml'], { cwd: dir, env: { ...env, CI: 'true' } });
    expect(await refused.exit).toBe(3);
    expect(refused.stderr.text).toContain('CI is set: pass --auto-approve');
    expect(groupNames()).toEqual([]);

    const approved = runCliOnTerminal(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env: { ...env, CI: 'true' } });
    expect(await approved.exit).toBe(0);
    expect(approved.stdout.raw).not.toContain('\u001B');
    expect(approved.stdout.raw).toContain('\n  ok      gruposProdutos "Maquiagem" create (id ');
    expect(approved.stdout.raw).toContain('\nApply: 1 applied, 0 failed, 0 skipped, 0 blocked.\n');
    expect(groupNames()).toEqual(['Maquiagem']);
  });

  it('plan colours a terminal unless NO_COLOR is set', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const colored = runCliOnTerminal(['plan', 'm.yaml'], { cwd: dir, env });
    expect(await colored.exit).toBe(0);
    expect(colored.stdout.raw).toContain('\u001B[32m+ gruposProdutos "Maquiagem" — create');
    const plain = runCliOnTerminal(['plan', 'm.yaml'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    expect(await plain.exit).toBe(0);
    expect(plain.stdout.raw).not.toContain('\u001B');
    expect(plain.stdout.raw).toBe(colored.stdout.text);
  });

  it('plan folds field diffs of a large change set on a terminal, repeats the summary last, and --verbose unfolds', async () => {
    const many = Array.from(
      { length: 45 },
      (_, i) => `  - descricao: Forma ${i}\n    tipoPagamento: boleto\n    finalidade: recebimentos\n    destino: contas\n    condicao: "28"\n    utilizaDiasUteis: true\n    juros: 1\n    multa: 2\n`,
    );
    writeFileSync(path.join(dir, 'm.yaml'), `version: 1\nformasPagamentos:\n${many.join('')}`);
    const folded = runCliOnTerminal(['plan', 'm.yaml'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    expect(await folded.exit, folded.stderr.text).toBe(0);
    const lines = folded.stdout.text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(lines.find((line) => line.startsWith('Plan: ')));
    expect(folded.stdout.text).toContain('more field(s) (use --verbose)');
    const verbose = runCliOnTerminal(['plan', 'm.yaml', '--verbose'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    expect(await verbose.exit).toBe(0);
    expect(verbose.stdout.text).not.toContain('more field(s)');
    // Without a terminal the plan is the plain one, folded at 20 fields per change.
    const piped = await runCli(['plan', 'm.yaml'], { cwd: dir, env });
    expect(piped.stdout).not.toContain('more field(s)');
  });
});

describe('plan --format markdown', () => {
  it('prints Markdown for a pull request and keeps the detailed exit code', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    const changes = await runCli(['plan', 'm.yaml', '--format', 'markdown', '--detailed-exitcode', '--out', 'plan.json'], { cwd: dir, env });
    expect(changes.code).toBe(2);
    expect(changes.stdout.split('\n')[0]).toBe('### erpsync plan: 1 to create');
    expect(changes.stdout).toContain('| `gruposProdutos` | 1 |');
    expect(changes.stdout).not.toContain('Saved the plan');
    expect((await runCli(['apply', 'plan.json', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const none = await runCli(['plan', 'm.yaml', '--format', 'markdown', '--detailed-exitcode'], { cwd: dir, env });
    expect(none.code).toBe(0);
    expect(none.stdout.split('\n')[0]).toBe('### erpsync plan: no changes');
  });

  it('rejects an unknown format and --json with markdown (usage, exit 1)', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), groups(['Maquiagem']));
    expect((await runCli(['plan', 'm.yaml', '--format', 'html'], { cwd: dir, env })).code).toBe(1);
    expect((await runCli(['plan', 'm.yaml', '--format', 'markdown', '--json'], { cwd: dir, env })).code).toBe(1);
  });
});
