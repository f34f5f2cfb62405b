// Hostile input from the other side: records in the account (typed by anyone with access to the
// ERP) whose names carry line breaks, terminal escape sequences and bidi controls. Every command's
// text output must show them escaped — no raw control character reaches the terminal — and the
// commands must neither crash nor print a stack trace.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';

const hostile = ['Roupas\u001b[2J\u001b[31mLIMPA', 'Duas\nlinhas', 'Inverte\u202etxt.exe', 'Sino\u0007'];

let emulator: Emulator;
let cwd: string;
let env: NodeJS.ProcessEnv;

/** The first raw control character (other than the line feed) in `text`, if any; bidi controls count unless `data` is true. */
function rawControl(text: string, data: boolean): string | undefined {
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    const bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if ((c !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f))) || (bidi && !data)) return `U+${code.toString(16).padStart(4, '0')}`;
  }
  return undefined;
}

async function post(resource: string, body: unknown): Promise<void> {
  const response = await fetch(`${emulator.baseUrl}${resource}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(201);
}

beforeAll(async () => {
  emulator = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  cwd = mkdtempSync(path.join(tmpdir(), 'erpsync-hostile-'));
  env = { BLING_ACCESS_TOKEN: emulator.token, ERPSYNC_BASE_URL: emulator.baseUrl, ERPSYNC_RATE: '1000' };
  for (const nome of hostile) await post('/grupos-produtos', { nome });
  for (const descricao of hostile) await post('/categorias/produtos', { descricao });
  // The manifests own both kinds, so every hostile record is planned for deletion, reported as drift, exported.
  writeFileSync(path.join(cwd, 'm.yaml'), 'version: 1\npolicy:\n  prune: [gruposProdutos, categoriasProdutos]\ngruposProdutos:\n  - nome: Nova\ncategoriasProdutos:\n  - descricao: Nova\n');
});

afterAll(async () => {
  await emulator.close();
  rmSync(cwd, { recursive: true, force: true });
});

describe('names from the account that carry control characters', () => {
  // Export writes the names as data (YAML escapes control characters, and keeps bidi marks so a
  // re-imported name is the same name); every other output is for reading and escapes them all.
  it.each([
    ['plan', ['plan', 'm.yaml', '--verbose'], false],
    ['plan markdown', ['plan', 'm.yaml', '--format', 'markdown'], false],
    ['drift', ['drift', 'm.yaml'], false],
    ['drift markdown', ['drift', 'm.yaml', '--format', 'markdown'], false],
    ['export', ['export', '--kinds', 'gruposProdutos,categoriasProdutos'], true],
    ['apply', ['apply', 'm.yaml', '--auto-approve', '--max-deletes', '20'], false],
  ] as const)('%s shows them escaped', async (_name, args, data) => {
    const result = await runCli([...args], { cwd, env });
    const output = `${result.stdout}${result.stderr}`;
    expect([0, 2], output).toContain(result.code);
    expect(output).not.toMatch(/internal error|^\s+at .+:\d+:\d+\)?$/m);
    expect(rawControl(output, data), output).toBeUndefined();
  });
});
