// drift --adopt against the emulator: a person changes a payment method in the ERP; adopt writes
// the account's values into the manifest file in place — comments, key order and the ${VAR}
// reference untouched, the value fed by the variable reported as not adoptable — and drift is
// clean afterwards. The file edit itself (rewriteManifest) is checked on its own too.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planAdoption, rewriteManifest } from '../../src/drift/adopt-drift.js';
import { registry } from '../../src/kinds/registry.js';
import type { DesiredRecord, DesiredState } from '../../src/model/desired.js';
import type { DriftReport } from '../../src/model/drift.js';
import type { LiveRecord } from '../../src/model/live.js';
import type { FieldEdit } from '../../src/drift/adopt-drift.js';
import { runCli } from '../support/run-cli.js';
import { findId, openTestAccount } from '../export/support.js';
import type { TestAccount } from '../export/support.js';

let account: TestAccount | undefined;
afterEach(async () => {
  await account?.close();
  account = undefined;
});

const manifest = `version: 1
# Payment methods of the store
formasPagamentos:
  # Pix at the counter
  - descricao: Pix da loja
    tipoPagamento: pix-estatico # static QR code
    finalidade: pagamentos-e-recebimentos
    destino: caixa-e-bancos
    juros: 1 # interest, percent
    multa: \${MULTA}
`;

describe('drift --adopt', () => {
  it('takes the account\'s values back into the file in place, then drift is clean', async () => {
    account = await openTestAccount('empty');
    const { dir, env, call } = account;
    mkdirSync(path.join(dir, 'm'));
    const file = path.join(dir, 'm/pay.yaml');
    writeFileSync(file, manifest);
    expect((await runCli(['apply', 'm', '--auto-approve'], { cwd: dir, env: { ...env, ERPSYNC_VAR_MULTA: '2' } })).code).toBe(0);

    // In the ERP: interest, type and fine changed by hand.
    const id = await findId(account, '/formas-pagamentos', 'Pix da loja');
    const { data } = (await call('GET', `/formas-pagamentos/${id}`)) as { data: Record<string, unknown> };
    await call('PUT', `/formas-pagamentos/${id}`, { ...data, juros: 3.5, multa: 4, tipoPagamento: 17 });

    const adopt = await runCli(['drift', 'm', '--adopt'], { cwd: dir, env: { ...env, ERPSYNC_VAR_MULTA: '2' } });
    expect(adopt.stderr).toBe('');
    expect(adopt.stdout).toContain('Adopted into m/pay.yaml: formasPagamentos "Pix da loja" tipoPagamento; formasPagamentos "Pix da loja" juros');
    expect(adopt.stdout).toContain('Not adopted: formasPagamentos "Pix da loja" multa: its value comes from a ${VAR}: change the variable instead');
    expect(adopt.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(manifest.replace('pix-estatico #', 'pix-dinamico #').replace('juros: 1 #', 'juros: 3.5 #'));

    const after = await runCli(['drift', 'm'], { cwd: dir, env: { ...env, ERPSYNC_VAR_MULTA: '4' } });
    expect(after.stdout.split('\n')[1]).toBe('No drift: the account matches the manifests (1 managed record, 1 in sync).');
    expect(after.code).toBe(0);
    const again = await runCli(['drift', 'm', '--adopt'], { cwd: dir, env: { ...env, ERPSYNC_VAR_MULTA: '4' } });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to adopt');
  });
});

describe('rewriteManifest', () => {
  const edit = (fieldPath: (string | number)[], value: unknown, line = 3): FieldEdit => ({ file: 'f.yaml', line, recordPath: ['gruposProdutos', 0], fieldPath, value, subject: fieldPath.join('.') });

  it('adds a key through the document API, keeping the comments, the other keys and ${VAR} references', () => {
    const text = 'version: 1\ngruposProdutos: # groups\n  - nome: A # the first\n    extra: ${X}\n';
    const { text: out, refused } = rewriteManifest(text, [edit(['taxas', 'aliquota'], 2)]);
    expect(refused).toEqual([]);
    // Re-rendered by the yaml library: every comment kept, one that sat after a key opening a block moves onto the next line.
    expect(out).toBe('version: 1\ngruposProdutos:\n  # groups\n  - nome: A # the first\n    extra: ${X}\n    taxas:\n      aliquota: 2\n');
  });

  it('edits the right document of a multi-document file, and refuses structural edits there', () => {
    const text = 'version: 1\ngruposProdutos:\n  - nome: A\n---\nversion: 1\ngruposProdutos:\n  - nome: B\n    ordem: 1\n';
    const { text: out, refused } = rewriteManifest(text, [edit(['ordem'], 5, 7), edit(['novo'], 1, 3)]);
    expect(out).toBe(text.replace('ordem: 1', 'ordem: 5'));
    expect(refused).toEqual([{ subject: 'novo', why: 'it needs a new or removed key in a multi-document file: edit it by hand' }]);
  });
});

describe('planAdoption', () => {
  it('never writes a secret nor over a ${VAR}, and writes enumerations as labels', () => {
    const position = { file: 'm/pay.yaml', line: 3, col: 5 };
    const value = { descricao: 'Pix', tipoPagamento: 20, juros: 1, multa: 2 };
    const record = {
      kind: 'formasPagamentos',
      identity: 'Pix',
      name: 'Pix',
      fields: value,
      tool: { ensure: 'present', protect: false, previousNames: [] },
      secretVariables: {},
      position,
      source: { kind: 'formasPagamentos', value, pointer: '/formasPagamentos/0', file: 'm/pay.yaml', interpolatedPaths: [['multa']] },
      locate: () => position,
    } as unknown as DesiredRecord;
    const desired = { records: new Map([['formasPagamentos', [record]]]) } as unknown as DesiredState;
    const fields = { descricao: 'Pix', tipoPagamento: 17, juros: 3, multa: 4 };
    const live: LiveRecord = { kind: 'formasPagamentos', id: 7, identity: 'Pix', name: 'Pix', fields, raw: fields, detailLoaded: true };
    const report = {
      findings: [
        {
          type: 'modified',
          kind: 'formasPagamentos',
          key: 'Pix',
          liveId: 7,
          actions: ['update'],
          fields: [
            { path: 'tipoPagamento', manifest: 20, account: 17 },
            { path: 'multa', manifest: 2, account: 4 },
            { path: 'senha', manifest: undefined, account: undefined, sensitive: true },
          ],
        },
      ],
    } as unknown as DriftReport;
    const adoption = planAdoption({ report, desired, live: { records: new Map([['formasPagamentos', [live]]]), reads: 0 }, adapters: registry.units });
    expect(adoption.edits.map((e) => [e.fieldPath, e.value])).toEqual([[['tipoPagamento'], 'pix-dinamico']]);
    expect(adoption.notAdopted.map((n) => n.why)).toEqual(['its value comes from a ${VAR}: change the variable instead', 'a secret: erpsync never writes one into a manifest']);
  });
});
