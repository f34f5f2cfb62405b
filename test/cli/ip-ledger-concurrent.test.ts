// Two erpsync processes started together on one machine share its egress IP, and share its budget
// as they run (state/local/ip-budget): two fleet plans, each of them sending more than the whole
// budget, against sandbox accounts whose emulators judge one IP by the service's per-IP rules. The
// rules and the governor are scaled alike so the test stays short: a tenth of the thresholds
// (`--ip-runners 10` keeps the governor's margin under them) and a tenth of the windows
// (ERPSYNC_IP_WINDOW_SCALE=0.1), so one window is 1 s and 60 requests. Alone, each process would
// let 48 requests through in its first window, 96 together.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, createIpLedger, serviceIpRules } from '../../src/emulator/index.js';
import type { Emulator, IpLedger } from '../../src/emulator/index.js';
import { ensureBuiltCli, startCli } from '../reliability/support/built-cli.js';
import { mostInWindow } from '../support/windows.js';

const perProcess = 40;
const scale = 10;
let dir = '';
let ledger: IpLedger;
const env: NodeJS.ProcessEnv = { ERPSYNC_IP_WINDOW_SCALE: String(1 / scale) };
const emulators: Emulator[] = [];
const rules = serviceIpRules.map((rule) => ({ ...rule, limit: rule.limit / scale, windowMs: rule.windowMs / scale }));

beforeAll(async () => {
  await ensureBuiltCli();
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-ip-concurrent-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  // Violations are recorded, not enforced: a failure shows every rule the pair broke, not the first block.
  ledger = createIpLedger({ rules, enforce: false });
  const config = ['version: 1', 'targets:'];
  for (let i = 0; i < 2 * perProcess; i += 1) {
    const emulator = await createEmulator({ rateLimit: 0, ipRules: ledger, company: { id: `conta-${i}`, nome: `Loja ${i} Ltda` } });
    emulators.push(emulator);
    env[`TOKEN_${i}`] = emulator.token;
    const group = i < perProcess ? 'a' : 'b';
    config.push(`  ${group}-${i}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, '    rate: 1000');
  }
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config.join('\n')}\n`);
  writeFileSync(path.join(dir, 'base.yaml'), 'version: 1\ngruposProdutos:\n  - nome: Revenda\n');
}, 120_000);

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('two erpsync processes at once on one IP', () => {
  it('share the per-IP budget as they run: the emulator records no violation', async () => {
    const plan = (group: string) => startCli(['plan', 'base.yaml', '--target', `${group}-*`, '--json', '--parallel', '100', '--ip-runners', String(scale)], { cwd: dir, env });
    const runs = [plan('a'), plan('b')];
    const exits = await Promise.all(runs.map((run) => run.exit));
    for (const exit of exits) expect(exit.code, exit.stderr).toBe(0);

    const arrivals = (from: number, to: number) => emulators.slice(from, to).flatMap((e) => e.requestLog().map((entry) => entry.at));
    const [a, b] = [arrivals(0, perProcess), arrivals(perProcess, 2 * perProcess)];
    const windowMs = rules[0]!.windowMs;
    // Each process alone sent more than one window's rule, and they ran at the same time.
    expect(a.length).toBeGreaterThan(rules[0]!.limit);
    expect(b.length).toBeGreaterThan(rules[0]!.limit);
    expect(Math.max(Math.min(...a), Math.min(...b))).toBeLessThan(Math.min(Math.max(...a), Math.max(...b)));
    expect(ledger.violations()).toEqual([]);
    expect(mostInWindow([...a, ...b], windowMs)).toBeLessThanOrEqual(rules[0]!.limit);
    // Each process kept a file of its own in the ledger folder.
    expect(readdirSync(path.join(dir, '.locks', 'ip-ledger')).filter((name) => name.endsWith('.json'))).toHaveLength(2);
  });
});
