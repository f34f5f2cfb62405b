// The journal as evidence, end to end through the CLI against the emulator: two runs, and then
// the second one's file tampered with as an attacker (or an accident) would — a forged change
// naming a record the run never touched, a forged `before`, a removed line, two lines swapped, a
// wrong-typed value, a numeric timestamp. Each is found and named `file:line`; `history` still
// lists the first run (and the damaged one with what is wrong); `history RUN` and `plan --revert`
// of the damaged run exit 3 without a single request; the dashboard still shows the first run.
// Without its run index the run is unanchored (a revert of it says so), and a forged line is still
// found by the chain. And a write the service did not keep is shown as `not-kept`, never `applied`.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, groupNamesOf, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-journal-evidence-'));
});
afterEach(() => closeTestAccount({ emulator, dir }));

const manifest = (juros: number, groups: readonly string[]) => `version: 1
formasPagamentos:
  - descricao: Boleto da loja
    tipoPagamento: boleto
    finalidade: recebimentos
    destino: contas
    juros: ${juros}
gruposProdutos:
${groups.map((g) => `  - nome: ${g}\n`).join('')}`;

interface Runs {
  first: string;
  second: string;
  /** The second run's file and its lines as written. */
  file: string;
  lines: string[];
}

/** Run one creates the boleto and a group; a group is added by hand; run two updates the boleto and creates another group. */
async function twoRuns(): Promise<Runs> {
  const apply = async (text: string): Promise<string> => {
    writeFileSync(path.join(dir, 'm.yaml'), text);
    const ran = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    return latestRun();
  };
  const first = await apply(manifest(1, ['Maquiagem']));
  const made = await fetch(`${emulator.baseUrl}/grupos-produtos`, { method: 'POST', headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Intocado' }) });
  expect(made.status).toBeLessThan(300);
  const second = await apply(manifest(2, ['Maquiagem', 'Perfumaria']));
  const file = path.join(dir, '.erpsync/journal', `${second}.jsonl`);
  return { first, second, file, lines: readFileSync(file, 'utf8').trimEnd().split('\n') };
}

function latestRun(): string {
  return readdirSync(path.join(dir, '.erpsync/journal')).sort().at(-1)?.replace(/\.jsonl$/, '') ?? '';
}

/** The 1-based number of the first line matching `test`. */
function lineOf(lines: readonly string[], test: (line: Record<string, unknown>) => boolean): number {
  const index = lines.findIndex((text) => test(JSON.parse(text) as Record<string, unknown>));
  expect(index, 'no such line').toBeGreaterThanOrEqual(0);
  return index + 1;
}

const writesTo = (e: Emulator) => e.requestLog().filter((entry) => entry.method !== 'GET');

/** Everything a damaged run must cause, with `where` (`file:line: …`) named in each. */
async function expectDamaged(runs: Runs, where: RegExp): Promise<void> {
  const before = groupNamesOf(emulator);
  emulator.clearLog();
  const list = await runCli(['history'], { cwd: dir, env });
  expect(list.code, list.stderr).toBe(0);
  expect(list.stdout).toMatch(new RegExp(`^${runs.first} .* finished `, 'm'));
  expect(list.stdout).toMatch(new RegExp(`^${runs.second} {2}damaged {2}`, 'm'));
  expect(list.stdout).toMatch(where);

  const shown = await runCli(['history', runs.second], { cwd: dir, env });
  expect(shown.code).toBe(3);
  expect(shown.stderr).toMatch(where);
  expect(shown.stderr).not.toMatch(/internal error|this is a bug|TypeError/);

  const revert = await runCli(['plan', '--revert', runs.second, '--out', 'revert.json'], { cwd: dir, env });
  expect(revert.code, revert.stdout + revert.stderr).toBe(3);
  expect(revert.stderr).toMatch(where);
  expect(revert.stderr).toContain(`the run ${runs.second} in ${runs.file} fails the journal's checks`);
  expect(emulator.requestLog()).toEqual([]);
  expect(writesTo(emulator)).toEqual([]);
  expect(groupNamesOf(emulator)).toEqual(before);

  const report = await runCli(['report', '--html', 'fleet.html'], { cwd: dir, env });
  expect(report.code, report.stderr).toBe(0);
  expect(report.stderr).toMatch(where);
  expect(readFileSync(path.join(dir, 'fleet.html'), 'utf8')).toContain(runs.first);
}

describe('a tampered run of the journal', () => {
  it('is found and named for each kind of tampering; the other run is still shown, and the damaged one is never reverted', async () => {
    const runs = await twoRuns();
    const { file, lines } = runs;
    const name = path.basename(file).replace(/\./g, '\\.');
    const at = (line: number, what: string) => new RegExp(`${name}:${line}: ${what}`);
    const tamper = (edited: readonly string[]) => writeFileSync(file, `${edited.join('\n')}\n`);
    const create = lineOf(lines, (l) => l.type === 'intent' && l.key === 'Perfumaria');
    const update = lineOf(lines, (l) => l.type === 'intent' && l.key === 'Boleto da loja');
    const outcome = lineOf(lines, (l) => l.type === 'outcome' && typeof l.id === 'number');
    const replace = (line: number, edit: (text: string) => string) => lines.map((text, i) => (i === line - 1 ? edit(text) : text));

    // A forged change: the create now names a record the run never touched. Reverted, it would be deleted.
    tamper(replace(create, (text) => text.replace('"key":"Perfumaria"', '"key":"Intocado"').replace('"nome":"Perfumaria"', '"nome":"Intocado"')));
    await expectDamaged(runs, at(create, 'the line is not the one the run wrote here \\(changed\\)'));
    expect(groupNamesOf(emulator)).toContain('Intocado');

    // A forged `before`: reverted, it would rename the boleto.
    tamper(replace(update, (text) => text.replace('"descricao":"Boleto da loja"', '"descricao":"Boleto forjado"')));
    await expectDamaged(runs, at(update, 'the line is not the one the run wrote here \\(changed\\)'));

    // A removed line, and two lines swapped.
    tamper(lines.filter((_text, i) => i !== create - 1));
    await expectDamaged(runs, at(create, `the run's line ${create} is missing \\(removed\\)`));
    tamper(lines.map((text, i) => (i === 1 ? lines[2] : i === 2 ? lines[1] : text) ?? text));
    await expectDamaged(runs, at(3, "the line is the run's line 2, out of the order the run wrote it in \\(reordered\\)"));

    // A wrong-typed value, a numeric timestamp: refused by the schema, named with the field.
    tamper(replace(outcome, (text) => text.replace(/"id":(\d+)/, '"id":"$1"')));
    await expectDamaged(runs, at(outcome, 'id must be integer'));
    tamper(replace(1, (text) => text.replace(/"startedAt":"[^"]+"/, '"startedAt":1764201300000')));
    await expectDamaged(runs, at(1, 'startedAt must be string'));

    // Put back as it was, the run is whole again, and verified.
    tamper(lines);
    const shown = await runCli(['history', runs.second], { cwd: dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('evidence: verified');
  });

  it('without its run index is unanchored, and a forged line is still found by the chain of hashes', async () => {
    const runs = await twoRuns();
    rmSync(path.join(dir, '.erpsync/journal.index', `${runs.second}.sha256`));
    const shown = await runCli(['history', runs.second], { cwd: dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('evidence: unanchored');
    const planned = await runCli(['plan', '--revert', runs.second], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stderr).toContain(`run ${runs.second} is unanchored here`);
    const create = lineOf(runs.lines, (l) => l.type === 'intent' && l.key === 'Perfumaria');
    writeFileSync(runs.file, `${runs.lines.map((text, i) => (i === create - 1 ? text.replace('"key":"Perfumaria"', '"key":"Intocado"') : text)).join('\n')}\n`);
    const name = path.basename(runs.file).replace(/\./g, '\\.');
    await expectDamaged(runs, new RegExp(`${name}:${create + 1}: the line does not follow line ${create} \\(its hash of the line before differs`));
  });
});

describe('a write the service did not keep', () => {
  it('is shown by history as not-kept, naming the field, never as applied', async () => {
    writeFileSync(path.join(dir, 'm.yaml'), manifest(1, ['Maquiagem']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    // The service drops the interest from the update: the read-back finds it not kept.
    emulator.setFaults({ dropMembers: [{ method: 'PUT', path: '/formas-pagamentos', member: 'juros' }] });
    writeFileSync(path.join(dir, 'm.yaml'), manifest(4, ['Maquiagem']));
    expect((await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env })).code).toBe(1);
    const run = latestRun();
    const shown = await runCli(['history', run], { cwd: dir, env });
    expect(shown.stdout).toMatch(/^not-kept update formasPagamentos "Boleto da loja" \(id \d+\) — formasPagamentos "Boleto da loja": juros was not kept: sent 4, the account holds \d+$/m);
    const json = JSON.parse((await runCli(['history', run, '--json'], { cwd: dir, env })).stdout) as { applied: number; notKept: number };
    expect(json).toMatchObject({ applied: 0, notKept: 1 });
    expect((await runCli(['history'], { cwd: dir, env })).stdout).toMatch(new RegExp(`^${run} .* failed {2}0 applied, 1 not kept `, 'm'));
  });
});
