// drift --adopt where manifests are shared: three stores read one base, and loja-a has an overlay of
// its own. A hand edit in loja-a of a record the base declares is refused — the base is named with
// the stores that read it, and no file changes; a hand edit of a record loja-a's overlay declares
// is written there, and every other store still plans clean. The same holds across a fleet.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

const names = ['loja-a', 'loja-b', 'loja-c'] as const;
let dir = '';
const env: NodeJS.ProcessEnv = {};
let emulators: Emulator[] = [];

const baseFile = 'base/pagamentos.yaml';
const overlayFile = 'overlays/loja-a/pagamentos.yaml';
const baseText = `version: 1
formasPagamentos:
  # every store takes Pix
  - descricao: Pix
    tipoPagamento: pix-estatico
    finalidade: pagamentos-e-recebimentos
    destino: caixa-e-bancos
    juros: 1
`;
const overlayText = `version: 1
formasPagamentos:
  # only loja-a sells on credit
  - descricao: Crediário da loja
    tipoPagamento: credito-loja
    finalidade: recebimentos
    destino: caixa-e-bancos
    juros: 2
`;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}
const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
const run = (args: string[]) => runCli(args, { cwd: dir, env });

/** Changes one field of a payment method by hand, as a person in the ERP would. */
async function editByHand(emulator: Emulator, descricao: string, juros: number): Promise<void> {
  const headers = { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' };
  const list = (await (await fetch(`${emulator.baseUrl}/formas-pagamentos`, { headers })).json()) as { data: { id: number; descricao: string }[] };
  const id = list.data.find((f) => f.descricao === descricao)?.id;
  const { data } = (await (await fetch(`${emulator.baseUrl}/formas-pagamentos/${id}`, { headers })).json()) as { data: Record<string, unknown> };
  const put = await fetch(`${emulator.baseUrl}/formas-pagamentos/${id}`, { method: 'PUT', headers, body: JSON.stringify({ ...data, juros }) });
  expect(put.status).toBe(200);
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-adopt-fleet-'));
  env.ERPSYNC_LOCK_DIR = path.join(dir, '.locks');
  const config = ['version: 1', 'targets:'];
  emulators = [];
  for (const [i, name] of names.entries()) {
    const emulator = await createEmulator({ rateLimit: 0, seed: 'empty', company: { id: `${name}-account`, nome: `Loja ${i + 1} Ltda` } });
    emulators.push(emulator);
    env[`TOKEN_${i}`] = emulator.token;
    const layers = name === 'loja-a' ? '[base, overlays/loja-a]' : '[base]';
    config.push(`  ${name}:`, `    baseUrl: ${emulator.baseUrl}`, `    credentials: { tokenEnv: TOKEN_${i} }`, `    manifests: ${layers}`, '    rate: 1000');
  }
  write('erpsync.config.yaml', `${config.join('\n')}\n`);
  write(baseFile, baseText);
  write(overlayFile, overlayText);
  const applied = await run(['apply', '--all-targets', '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
});
afterEach(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('drift --adopt with shared manifests', () => {
  it('refuses to write one store\'s edit into the shared base, naming the file and the stores that read it', async () => {
    await editByHand(emulators[0] as Emulator, 'Pix', 5);
    const adopt = await run(['drift', '--target', 'loja-a', '--adopt']);
    expect(adopt.code).toBe(2);
    expect(adopt.stdout).toContain(`Not adopted into ${baseFile}: the file is shared with loja-b, loja-c`);
    expect(read(baseFile)).toBe(baseText);
    expect(read(overlayFile)).toBe(overlayText);
    // The other stores are as they were: nothing to change.
    for (const name of ['loja-b', 'loja-c']) expect((await run(['plan', '--target', name, '--detailed-exitcode'])).code, name).toBe(0);
  });

  it('writes an edit of a record the store\'s own overlay declares into the overlay; every other store still plans clean', async () => {
    await editByHand(emulators[0] as Emulator, 'Crediário da loja', 3.5);
    const adopt = await run(['drift', '--target', 'loja-a', '--adopt']);
    expect(adopt.stderr).toBe('');
    expect(adopt.stdout).toContain(`Adopted into ${overlayFile}: formasPagamentos "Crediário da loja" juros`);
    expect(adopt.stdout).toContain('Checked target loja-a again: its manifests are valid.');
    expect(adopt.code, adopt.stdout).toBe(0);
    expect(read(overlayFile)).toBe(overlayText.replace('juros: 2', 'juros: 3.5'));
    expect(read(baseFile)).toBe(baseText);
    for (const name of names) expect((await run(['plan', '--target', name, '--detailed-exitcode'])).code, name).toBe(0);
  });

  it('across a fleet each store adopts into its own overlay only', async () => {
    await editByHand(emulators[0] as Emulator, 'Crediário da loja', 3.5);
    await editByHand(emulators[1] as Emulator, 'Pix', 7);
    const adopt = await run(['drift', '--all-targets', '--adopt']);
    expect(adopt.code).toBe(2);
    expect(adopt.stdout).toContain(`== loja-a ==\nAdopted into ${overlayFile}: formasPagamentos "Crediário da loja" juros`);
    expect(adopt.stdout).toContain(`== loja-b ==\nNot adopted into ${baseFile}: the file is shared with loja-a, loja-c`);
    expect(read(overlayFile)).toBe(overlayText.replace('juros: 2', 'juros: 3.5'));
    expect(read(baseFile)).toBe(baseText);
    expect((await run(['plan', '--target', 'loja-a', '--detailed-exitcode'])).code).toBe(0);
    expect((await run(['plan', '--target', 'loja-c', '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses manifests named on the command line for a fleet: every store reads them', async () => {
    await editByHand(emulators[2] as Emulator, 'Pix', 9);
    const adopt = await run(['drift', '--all-targets', '--adopt', 'base']);
    expect(adopt.stdout).toContain(`Not adopted into ${baseFile}: the file is shared with loja-a, loja-b`);
    expect(read(baseFile)).toBe(baseText);
  });
});
