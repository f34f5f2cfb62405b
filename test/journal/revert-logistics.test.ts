// plan --revert of a run that changed logistics and their nested services, end to end through the
// CLI against the emulator over HTTP. Services cannot be deleted through the API, only deactivated
// (api-facts §7 item 14), so undoing a service the run created retires it (ativo false); a
// logistics the run created is deleted with its services; updated and retired services get their
// fields back. The emulator's state after the revert is compared with the state before the run.
// A service edited in the ERP since the run is a conflict, left alone unless --revert-conflicts.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { closeTestAccount, openTestAccount } from '../support/account.js';
import { runCli } from '../support/run-cli.js';

let emulator: Emulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ emulator, dir, env } = await openTestAccount('erpsync-revert-logistics-'));
});
afterEach(() => closeTestAccount({ emulator, dir }));

const before = `version: 1
logisticas:
  - descricao: Entrega própria
    situacao: habilitada
    servicos:
      - codigo: EXP
        descricao: Expressa
        freteItem: 10
        estimativaEntrega: 2
      - codigo: ECO
        descricao: Econômica
        freteItem: 5
        estimativaEntrega: 7
        aliases: [eco]
      - codigo: RET
        descricao: Retirada na loja
        freteItem: 0
        estimativaEntrega: 1
`;

// Updates EXP and ECO, retires RET, adds MOTO to the logistics, and creates a second logistics with a service.
const after = `version: 1
logisticas:
  - descricao: Entrega própria
    situacao: habilitada
    servicos:
      - codigo: EXP
        descricao: Expressa 24h
        freteItem: 12.5
        estimativaEntrega: 1
      - codigo: ECO
        descricao: Econômica
        freteItem: 5
        estimativaEntrega: 7
        aliases: [eco, economica]
      - codigo: RET
        ensure: absent
      - codigo: MOTO
        descricao: Motoboy
        freteItem: 15
        estimativaEntrega: 0
  - descricao: Transportadora parceira
    situacao: habilitada
    servicos:
      - codigo: PAC
        descricao: Encomenda
        freteItem: 20
        estimativaEntrega: 5
`;

/** The account's logistics and services as the test compares them: by name, without ids. */
function logisticsState() {
  const snapshot = emulator.snapshot();
  const nameOf = new Map(snapshot.logisticas.map((l) => [l.id, l.descricao]));
  return {
    // idIntegracao is the service's own id for a custom logistics, new when it is created again.
    logistics: snapshot.logisticas.map(({ id: _id, idIntegracao: _integration, ...rest }) => rest).sort((a, b) => a.descricao.localeCompare(b.descricao)),
    services: snapshot.servicosLogisticas
      .map(({ id: _id, idLogistica, ...rest }) => ({ logistica: nameOf.get(idLogistica), ...rest }))
      .sort((a, b) => `${a.logistica} ${a.codigo}`.localeCompare(`${b.logistica} ${b.codigo}`)),
  };
}

function lastRun(): string {
  return readdirSync(path.join(dir, '.erpsync/journal')).sort().at(-1)?.replace(/\.jsonl$/, '') ?? '';
}

async function applyRun(manifest: string): Promise<string> {
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
  const applied = await runCli(['apply', 'm.yaml', '--auto-approve'], { cwd: dir, env });
  expect(applied.code, applied.stderr).toBe(0);
  return lastRun();
}

describe('plan --revert of logistics services', () => {
  it('restores updated and retired services, retires created ones, deletes a created logistics with its services', async () => {
    await applyRun(before);
    const expected = logisticsState();
    const run = await applyRun(after);
    expect(logisticsState()).not.toEqual(expected);

    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toContain('conflict');
    expect(planned.stdout).not.toContain('by hand');
    expect(planned.stdout).toMatch(/- logisticas "Transportadora parceira" — delete/);
    expect(planned.stdout).toMatch(/- logisticas › servicos "Entrega própria > MOTO" — retire/);
    expect(planned.stdout).toMatch(/~ logisticas › servicos "Entrega própria > RET" — update[^\n]*\n\s+ativo: false → true/);
    // The services of the logistics it deletes go with it: no change of their own.
    expect(planned.stdout).not.toContain('Transportadora parceira > PAC');
    const applied = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);

    // Exactly the state before the run, but for MOTO: the API cannot delete a service, so the one
    // the run created stays, retired.
    const moto = logisticsState().services.find((s) => s.codigo === 'MOTO');
    expect(moto).toMatchObject({ logistica: 'Entrega própria', descricao: 'Motoboy', ativo: false });
    expect(logisticsState()).toEqual({ ...expected, services: [...expected.services, moto].sort((a, b) => `${a?.logistica} ${a?.codigo}`.localeCompare(`${b?.logistica} ${b?.codigo}`)) });

    // Nothing left to undo: the revert plan of the same run is now empty but for MOTO, already retired.
    const again = JSON.parse((await runCli(['plan', '--revert', run, '--json'], { cwd: dir, env })).stdout) as { changes: unknown[] };
    expect(again.changes).toEqual([]);
  });

  it('shows a service edited since the run as a conflict and leaves it, unless --revert-conflicts', async () => {
    await applyRun(before);
    const run = await applyRun(after);
    const exp = emulator.snapshot().servicosLogisticas.find((s) => s.codigo === 'EXP');
    const edited = await fetch(`${emulator.baseUrl}/logisticas/servicos/${exp?.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ descricao: 'Expressa 24h', codigo: 'EXP', aliases: [], freteItem: 99, estimativaEntrega: 1 }),
    });
    expect(edited.status).toBeLessThan(300);

    const planned = await runCli(['plan', '--revert', run, '--json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: { kind: string; key: string; action: string }[]; warnings: string[] };
    expect(plan.warnings.join('\n')).toMatch(/conflict: logisticasServicos "Entrega própria > EXP" changed since the run: freteItem is 99, the run left 12.5/);
    expect(plan.changes.map((c) => c.key)).not.toContain('Entrega própria > EXP');
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual(expect.arrayContaining([['update', 'Entrega própria > ECO'], ['retire', 'Entrega própria > MOTO']]));

    const forced = JSON.parse((await runCli(['plan', '--revert', run, '--revert-conflicts', '--json'], { cwd: dir, env })).stdout) as typeof plan;
    expect(forced.changes.find((c) => c.key === 'Entrega própria > EXP')).toMatchObject({ action: 'update' });
  });
});

describe('plan --revert of a renamed logistics', () => {
  it('names it back and restores the services the run changed in it', async () => {
    await applyRun(before);
    const expected = logisticsState();
    const renamed = after
      .replace('  - descricao: Entrega própria\n', '  - descricao: Entrega expressa\n    previousNames: [Entrega própria]\n')
      .replace(/ {2}- descricao: Transportadora parceira[\s\S]*$/, '');
    const run = await applyRun(renamed);
    expect(emulator.snapshot().logisticas.map((l) => l.descricao)).toContain('Entrega expressa');

    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toContain('conflict');
    expect((await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env })).code).toBe(0);
    const moto = logisticsState().services.find((s) => s.codigo === 'MOTO');
    expect(moto).toMatchObject({ logistica: 'Entrega própria', ativo: false });
    expect(logisticsState()).toEqual({ ...expected, services: [...expected.services, moto].sort((a, b) => `${a?.logistica} ${a?.codigo}`.localeCompare(`${b?.logistica} ${b?.codigo}`)) });
  });
});

describe('plan --revert and deleted logistics', () => {
  it('re-creates the logistics with the services it had', async () => {
    await applyRun(before);
    const expected = logisticsState();
    const run = await applyRun(`version: 1\nlogisticas:\n  - descricao: Entrega própria\n    ensure: absent\n`);
    expect(emulator.snapshot().logisticas.find((l) => l.descricao === 'Entrega própria')).toBeUndefined();
    const planned = await runCli(['plan', '--revert', run, '--out', 'revert.json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/\+ logisticas "Entrega própria" — create/);
    const applied = await runCli(['apply', 'revert.json', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(logisticsState()).toEqual(expected);
  });

  it('leaves the services of a logistics deleted in the ERP since the run, as a conflict', async () => {
    await applyRun(before);
    const run = await applyRun(after);
    const entrega = emulator.snapshot().logisticas.find((l) => l.descricao === 'Entrega própria');
    const deleted = await fetch(`${emulator.baseUrl}/logisticas/${entrega?.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${emulator.token}` } });
    expect(deleted.status).toBeLessThan(300);
    const plan = JSON.parse((await runCli(['plan', '--revert', run, '--revert-conflicts', '--json'], { cwd: dir, env })).stdout) as { changes: { key: string; action: string }[]; warnings: string[] };
    expect(plan.warnings.filter((w) => w.includes('is no longer in the account')).map((w) => w.split('"')[1]).sort()).toEqual(['Entrega própria > ECO', 'Entrega própria > EXP', 'Entrega própria > MOTO', 'Entrega própria > RET']);
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual([['delete', 'Transportadora parceira']]);
  });
});
