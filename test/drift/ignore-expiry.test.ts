// policy.ignore rules that expire (`until`): through the until day the rule hides the difference
// from plan and drift; from the next day on both show it again, and both say the rule expired.
// The day comes from ERPSYNC_TODAY, as a pipeline could pin it; the core never reads a clock.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';
import type { DriftReport } from '../../src/model/drift.js';
import type { Plan } from '../../src/model/plan.js';
import { activeIgnoreRules, isExpired } from '../../src/model/ignore-rules.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const pix = (juros: number, rule = '') =>
  `version: 1\n${rule}formasPagamentos:\n  - descricao: Pix\n    tipoPagamento: pix-estatico\n    finalidade: pagamentos-e-recebimentos\n    destino: caixa-e-bancos\n    juros: ${juros}\n`;
const rule = 'policy:\n  ignore:\n    - kind: formasPagamentos\n      key: Pix\n      field: juros\n      reason: the finance team sets interest by hand this quarter\n      until: 2026-06-30\n';

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

describe('expiring ignore rules', () => {
  it('apply through the until day, inclusive, and stop the day after', () => {
    const expiring = { kind: 'formasPagamentos' as const, reason: 'r', until: '2026-06-30' };
    const lasting = { kind: 'formasPagamentos' as const, reason: 'r' };
    expect(isExpired(expiring, '2026-06-30')).toBe(false);
    expect(isExpired(expiring, '2026-07-01')).toBe(true);
    expect(isExpired(expiring, undefined)).toBe(false);
    expect(activeIgnoreRules([expiring, lasting], '2027-01-01')).toEqual([lasting]);
  });

  it('hide a difference from plan and drift until they expire, then both show it and say why', async () => {
    account = await openTestAccount();
    const { dir, env } = account;
    write(dir, 'm/pay.yaml', pix(1));
    expect((await runCli(['apply', 'm', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    write(dir, 'm/pay.yaml', pix(2, rule));

    const onTheDay = { ...env, ERPSYNC_TODAY: '2026-06-30' };
    const quiet = await runCli(['drift', 'm', '--json'], { cwd: dir, env: onTheDay });
    // The fresh account's other payment methods are unmanaged findings either way: only Pix matters here.
    const quietReport = JSON.parse(quiet.stdout) as DriftReport;
    expect(quietReport.findings.filter((f) => f.key === 'Pix')).toEqual([]);
    expect(quietReport.summary.modified).toBe(0);
    expect(quietReport.ignored.map((i) => i.count)).toEqual([1]);
    expect(quietReport.warnings).toEqual([]);
    const quietPlan = JSON.parse((await runCli(['plan', 'm', '--json'], { cwd: dir, env: onTheDay })).stdout) as Plan;
    expect(quietPlan.changes).toEqual([]);

    const dayAfter = { ...env, ERPSYNC_TODAY: '2026-07-01' };
    const drift = await runCli(['drift', 'm'], { cwd: dir, env: dayAfter });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('1 modified');
    expect(drift.stdout).toContain(
      'WARNING: the policy.ignore rule on formasPagamentos "Pix" juros (the finance team sets interest by hand this quarter) expired after 2026-06-30: what it ignored is reported and planned again; remove the rule or move its until',
    );
    expect(drift.stdout).toContain('juros: 2 → 1');
    const plan = JSON.parse((await runCli(['plan', 'm', '--json'], { cwd: dir, env: dayAfter })).stdout) as Plan;
    expect(plan.changes.map((c) => [c.key, c.fields.map((f) => [f.path, f.before, f.after])])).toEqual([['Pix', [['juros', 1, 2]]]]);
    expect(plan.warnings.join('\n')).toContain('expired after 2026-06-30');
  });

  it('refuses a day that is not a date, and an until that is not one', async () => {
    account = await openTestAccount();
    const { dir, env } = account;
    write(dir, 'm/pay.yaml', pix(2, rule));
    const badDay = await runCli(['drift', 'm'], { cwd: dir, env: { ...env, ERPSYNC_TODAY: 'tomorrow' } });
    expect(badDay.code).toBe(1);
    expect(badDay.stderr).toContain('ERPSYNC_TODAY takes a date as YYYY-MM-DD');
    write(dir, 'm/pay.yaml', pix(2, rule.replace('2026-06-30', '30/06/2026')));
    const badUntil = await runCli(['validate', 'm'], { cwd: dir, env });
    expect(badUntil.code).toBe(1);
    expect(badUntil.stderr).toContain('until');
  });
});
