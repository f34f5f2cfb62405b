// A password that reads like a piece of the output itself — `true`, `false`, `null`, `0`, `2.49`,
// a quote, a backslash, `{}` — fed to the example store's NFS-e password. Secrets leave the data
// by field before anything is serialised, so every --json output (validate, plan, apply, drift,
// export) stays valid JSON; the secret field never shows a value; and the same text in an ordinary
// field (`utilizaDiasUteis: false → true`, `taxas.valor: 0 → 2.49`) is printed as itself.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';
import { example } from './support/stores.js';

const passwords = ['true', 'false', 'null', '0', '2.49', '"', '\\', '{}'];
const secretPath = 'adicionais.cadastroPrefeitura.senha';

let cwd: string;
let emulator: Emulator | undefined;

beforeAll(() => {
  cwd = mkdtempSync(path.join(tmpdir(), 'erpsync-secret-values-'));
});

afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Every value of a parsed JSON document, with the key or field path it sits under. */
function* entries(value: unknown, key = ''): Generator<{ key: string; value: unknown; holder?: Record<string, unknown> }> {
  if (Array.isArray(value)) for (const item of value) yield* entries(item, key);
  else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(record)) {
      yield { key: k, value: v, holder: record };
      yield* entries(v, k);
    }
  }
}

/** Parses JSON (or NDJSON, line by line) and checks that no secret field carries a value. */
function parseAndCheck(label: string, text: string, ndjson: boolean): unknown[] {
  const documents = ndjson ? text.split('\n').filter((line) => line.trim() !== '') : [text];
  expect(documents.length, `${label}: output`).toBeGreaterThan(0);
  const parsed = documents.map((doc) => {
    try {
      return JSON.parse(doc) as unknown;
    } catch (error) {
      throw new Error(`${label}: not valid JSON (${String(error)}):\n${doc}`);
    }
  });
  for (const doc of parsed) {
    for (const { key, value, holder } of entries(doc)) {
      // A record's senha, or a field change of it: never a value.
      if (key === 'senha') expect(typeof value === 'string' && !value.startsWith('${'), `${label}: senha holds a value`).toBe(false);
      if (key === 'path' && value === secretPath) expect(holder && ('before' in holder || 'after' in holder), `${label}: the change of ${secretPath} shows values`).toBe(false);
    }
  }
  return parsed;
}

async function run(args: string[], env: NodeJS.ProcessEnv, expected: number): Promise<string> {
  const result = await runCli(args, { cwd, env });
  expect(result.code, `erpsync ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(expected);
  return result.stdout;
}

describe('a password that looks like part of the output', () => {
  it.each(passwords)('NFSE_SENHA_PREFEITURA=%s: every --json output parses, and only the secret field is masked', async (password) => {
    emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
    const env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000', NFSE_SENHA_PREFEITURA: password };
    const out = `exported-${passwords.indexOf(password)}`;

    parseAndCheck('validate --json', await run(['validate', example, '--json'], env, 0), false);
    const [plan] = parseAndCheck('plan --json', await run(['plan', example, '--json'], env, 0), false) as [{ changes: { fields: { path: string; after?: unknown }[] }[] }];
    // The same text in an ordinary field is a value like any other, printed as itself.
    const afters = plan.changes.flatMap((c) => c.fields).map((f) => `${f.path}=${JSON.stringify(f.after)}`);
    expect(afters).toEqual(expect.arrayContaining(['utilizaDiasUteis=true', 'taxas.valor=2.49']));
    const text = await run(['plan', example, '--verbose'], env, 0);
    expect(text).toContain('utilizaDiasUteis: false → true');
    expect(text).toContain('taxas.valor: 0 → 2.49');
    expect(text.split('\n').filter((line) => line.includes('senha'))).toEqual([`    ${secretPath}: (sensitive) changed`]);

    parseAndCheck('apply --json', await run(['apply', example, '--json', '--auto-approve'], env, 0), true);
    expect(emulator.snapshot().nfseConfiguracoes.adicionais.cadastroPrefeitura.senha).toBe(password);
    parseAndCheck('drift --json', await run(['drift', example, '--json'], env, 0), false);
    parseAndCheck('export --json', await run(['export', '--out', out, '--json'], env, 0), false);
    expect(readFileSync(path.join(cwd, out, 'configuracoes-nfse.yaml'), 'utf8')).toContain('senha: ${NFSE_SENHA_PREFEITURA}');
  }, 60_000);
});
