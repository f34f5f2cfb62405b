// A pull request's manifest that names a CI secret (`${GITHUB_TOKEN}`, `${AWS_SECRET_ACCESS_KEY}`,
// `${NPM_TOKEN}`) gets a positioned error, and the secret's value appears in no output of any
// command or format: manifests read only the variables the project declares (model/variables).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const ciEnv = { GITHUB_TOKEN: 'ghp_Vazou0GitHub', AWS_SECRET_ACCESS_KEY: 'Vazou1/AwsSecretKey', NPM_TOKEN: 'npm_Vazou2Token', HOME: '/home/Vazou3' };
const manifest = [
  'version: 1',
  'gruposProdutos:',
  '  - nome: "Linha ${GITHUB_TOKEN}"',
  '  - nome: ${AWS_SECRET_ACCESS_KEY}',
  '  - nome: "${NPM_TOKEN} e ${HOME}"',
  '  - nome: "Loja ${LOJA}"',
  '',
].join('\n');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-undeclared-'));
  writeFileSync(path.join(dir, 'm.yaml'), manifest);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const commands: [string, string[]][] = [
  ['validate', ['validate', 'm.yaml']],
  ['validate --json', ['validate', 'm.yaml', '--json']],
  ['plan', ['plan', 'm.yaml', '--sandbox']],
  ['plan --json', ['plan', 'm.yaml', '--sandbox', '--json']],
  ['plan --format markdown', ['plan', 'm.yaml', '--sandbox', '--format', 'markdown']],
  ['drift --format markdown', ['drift', 'm.yaml', '--sandbox', '--format', 'markdown']],
  ['drift --format junit', ['drift', 'm.yaml', '--sandbox', '--format', 'junit']],
];

describe('a manifest naming a variable the project does not declare', () => {
  it.each(commands)('%s: an error at each reference, naming the rule, and no value in the output', async (_label, args) => {
    const run = await runCli(args, { cwd: dir, env: { ...ciEnv, ERPSYNC_VAR_LOJA: 'Centro', ERPSYNC_LOCK_DIR: path.join(dir, 'locks') } });
    expect(run.code).toBe(1);
    const output = run.stdout + run.stderr;
    for (const value of Object.values(ciEnv)) expect(output).not.toContain(value);
    expect(output).not.toMatch(/Vazou/);
    const positions = ['3:18', '4:11', '5:12', '5:27'];
    const names = ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'NPM_TOKEN', 'HOME'];
    if (args[0] === 'validate' && args.includes('--json')) {
      const report = JSON.parse(run.stdout) as { diagnostics: { code: string; line: number; col: number; message: string }[] };
      expect(report.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(positions.map((p) => `${p} undeclared-variable`));
    } else {
      positions.forEach((p, i) => expect(output).toContain(`m.yaml:${p}: error: undeclared-variable: variable ${names[i] ?? ''} is not declared`));
      expect(output).toContain('a manifest reads only the variables its project declares, never other environment variables');
    }
  });

  it('reads the same manifest with the variables declared under the prefix', async () => {
    const env = { ...ciEnv, ERPSYNC_VAR_LOJA: 'Centro', ERPSYNC_VAR_GITHUB_TOKEN: 'a', ERPSYNC_VAR_AWS_SECRET_ACCESS_KEY: 'b', ERPSYNC_VAR_NPM_TOKEN: 'c', ERPSYNC_VAR_HOME: 'd' };
    const run = await runCli(['plan', 'm.yaml', '--sandbox', '--json'], { cwd: dir, env: { ...env, ERPSYNC_LOCK_DIR: path.join(dir, 'locks') } });
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout) as { changes: { key: string }[] };
    expect(plan.changes.map((c) => c.key).sort()).toEqual(['Linha a', 'Loja Centro', 'b', 'c e d']);
    expect(run.stdout + run.stderr).not.toMatch(/Vazou/);
  });
});
