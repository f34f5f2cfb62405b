// The nightly drift of a small fleet, end to end from the command line: four emulated stores (a
// shared base, an overlay each) applied from git, three of them changed by hand in the ERP. Fleet
// drift gives every store's records, fields and who changed them in each format one store has
// (JSON checked against its published schema), `--out DIR` one report per store, `--baseline` per
// store; `--notify` gives three `open` notifications for their two owners and a `close` for the
// store nobody touched, and after the fix is applied the next night closes all of them. The
// dashboard's snapshot keeps what drifted, and `report --html` shows it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { FleetDriftStore } from '../../src/model/drift.js';
import type { DashboardModel } from '../../src/report/dashboard-data.js';
import type { DriftNotifications } from '../../src/report/drift-notify.js';
import { localDriftResults } from '../../src/state/local/drift-results.js';
import { openFleetAccounts } from '../support/fleet.js';
import { runCli } from '../support/run-cli.js';

const root = new URL('../../', import.meta.url);
const compile = (file: string) => new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(new URL(`schemas/${file}`, root), 'utf8')) as object);
const validateFleet = compile('drift-fleet.schema.json');
const validateNotify = compile('drift-notify.schema.json');

/** A name typed into the ERP by someone: markup, a mention and a link that must reach no issue as they are. */
const hostile = 'Loja 3 <img src=x onerror=alert(1)> @everyone [x](https://evil.example)';

let dir: string;
let env: NodeJS.ProcessEnv;
let stores: { name: string; emulator: Emulator }[] = [];
let close: () => Promise<void> = async () => undefined;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=erpsync test', '-c', 'user.email=test@erpsync.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, encoding: 'utf8' });
}

async function call(index: number, method: string, apiPath: string, body?: unknown): Promise<{ data: { id: number; descricao?: string; nome?: string }[] }> {
  const emulator = stores[index]?.emulator as Emulator;
  const response = await fetch(`${emulator.baseUrl}${apiPath}`, {
    method,
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${apiPath}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? { data: [] } : await response.json()) as { data: { id: number }[] };
}

async function idOf(index: number, apiPath: string, name: string): Promise<number> {
  const found = (await call(index, 'GET', apiPath)).data.find((r) => r.descricao === name || r.nome === name);
  if (!found) throw new Error(`no ${name} at ${apiPath}`);
  return found.id;
}

/** The sales module's situations, and one of them recoloured as the ERP's screen sends it. */
const salesSituations = '/situacoes/modulos/98310';
const recolour = async (index: number, cor: string) =>
  call(index, 'PUT', `/situacoes/${await idOf(index, salesSituations, 'Aguardando pagamento')}`, { idModuloSistema: 98310, nome: 'Aguardando pagamento', idHerdado: 6, cor });

/** The night's hand edits in the ERP: a situation's colour on stores 1 and 2, a group deleted on 2, a group renamed on 3. */
async function editByHand(): Promise<void> {
  await recolour(0, '#ff0000');
  await recolour(1, '#00ff00');
  await call(1, 'DELETE', `/grupos-produtos/${await idOf(1, '/grupos-produtos', 'Maquiagem')}`);
  await call(2, 'PUT', `/grupos-produtos/${await idOf(2, '/grupos-produtos', 'Loja 3')}`, { nome: hostile });
}

/** The model `report --html` embeds in its page, written from `cwd`. */
async function dashboardOf(cwd: string, args: string[]): Promise<DashboardModel> {
  const run = await runCli(['report', '--html', 'fleet.html', ...args], { cwd, env });
  expect(run.code, run.stderr).toBe(0);
  const embedded = /<script type="application\/json" id="dashboard-data">(.*?)<\/script>/s.exec(readFileSync(path.join(cwd, 'fleet.html'), 'utf8'))?.[1];
  return JSON.parse(embedded ?? 'null') as DashboardModel;
}

const notificationsOf = (file: string) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as DriftNotifications;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'erpsync-fleet-drift-'));
  ({ env, stores, close } = await openFleetAccounts(dir, 4, (i) => ({ manifests: ['base', `overlays/loja-0${i}`], variables: { LOJA: String(i) } })));
  // Owners: maria owns stores 1 and 2 herself, the support team every store of the group.
  const config = readFileSync(path.join(dir, 'erpsync.config.yaml'), 'utf8').replace(/^ {2}(lojas\/loja-0[12]):$/gm, '  $1:\n    owners: [maria]');
  writeFileSync(path.join(dir, 'erpsync.config.yaml'), `${config}owners:\n  "lojas/*": ["@agencia/suporte"]\n`);
  write(
    'base/loja.yaml',
    'version: 1\npolicy:\n  prune: [gruposProdutos]\nsituacoes:\n  - modulo: Vendas\n    nome: Aguardando pagamento\n    herdado: Em aberto\n    cor: "#f5a623"\ngruposProdutos:\n  - nome: Maquiagem\n',
  );
  for (let i = 1; i <= 4; i += 1) write(`overlays/loja-0${i}/grupos.yaml`, 'version: 1\ngruposProdutos:\n  - nome: Loja ${LOJA}\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'the fleet');
  const applied = await runCli(['apply', '--all-targets', '--auto-approve'], { cwd: dir, env });
  if (applied.code !== 0) throw new Error(`the fleet did not apply:\n${applied.stdout}${applied.stderr}`);
  await editByHand();
});

afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a fleet drift after a night of hand edits', () => {
  it('notifies the two owners of the three stores changed by hand, with records, fields and who changed them, and closes the one in sync', async () => {
    const run = await runCli(['drift', '--all-targets', '--notify', 'out/notify.json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain('Wrote 4 notification(s) to out/notify.json: 3 open, 1 close, 0 error.');
    const payload = notificationsOf('out/notify.json');
    expect(validateNotify(payload), JSON.stringify(validateNotify.errors)).toBe(true);
    const { notifications } = payload;
    expect(notifications.map((n) => [n.key, n.action, n.owners])).toEqual([
      ['erpsync-drift/lojas/loja-01', 'open', ['maria', '@agencia/suporte']],
      ['erpsync-drift/lojas/loja-02', 'open', ['maria', '@agencia/suporte']],
      ['erpsync-drift/lojas/loja-03', 'open', ['@agencia/suporte']],
      ['erpsync-drift/lojas/loja-04', 'close', ['@agencia/suporte']],
    ]);
    const [first, second, third, fourth] = notifications;
    expect(first?.assignees).toEqual(['maria', '@agencia/suporte'].filter((o) => !o.includes('/')));
    expect(first?.title).toBe('erpsync drift: lojas/loja-01 drifted (1 modified)');
    expect(first?.body.split('\n')[0]).toBe('<!-- erpsync-drift key=erpsync-drift/lojas/loja-01 -->');
    expect(first?.body).toContain('Owners: @maria @agencia/suporte');
    // The record, the field (manifests → account) and who changed it: someone in the ERP, after erpsync's run.
    expect(first?.body).toMatch(/\| `situacoes` \| `Vendas > Aguardando pagamento` \| \d+ \| `cor`: `"#f5a623"` → `"#ff0000"`<br>_changed in the ERP since erpsync run \S+ \(\S+\), the last run that touched it_ \|/);
    expect(second?.body).toContain('`cor`: `"#f5a623"` → `"#00ff00"`');
    expect(second?.body).toMatch(/\| `gruposProdutos` \| `Maquiagem` \| \d* \| _changed in the ERP since erpsync run/);
    expect(second?.counts).toEqual({ records: 2, modified: 1, missing: 1, pending: 0, unmanaged: 0 });
    expect(third?.title).toBe('erpsync drift: lojas/loja-03 drifted (1 missing, 1 unmanaged)');
    expect(third?.text).toBe('erpsync drift: store lojas/loja-03 drifted: 1 missing, 1 unmanaged. Owners: @agencia/suporte.');
    expect(fourth).toMatchObject({ action: 'close', title: 'erpsync drift: lojas/loja-04 is back in sync', counts: { records: 0 } });
    // The name typed into the ERP reaches no field as it stands: no tag, no mention, no link.
    // Inside code (an HTML `<code>` element, the unmanaged record's fenced YAML snippet) text renders as it reads.
    const outsideCode = (body: string) => body.replace(/^(`{3,})yaml\n[^]*?\n\1$/gm, '').replace(/<code>[^<]*<\/code>/g, '');
    for (const notification of notifications) {
      const { body, ...rest } = notification;
      expect(JSON.stringify(rest)).not.toMatch(/<img|@everyone|evil\.example/);
      expect(outsideCode(body)).not.toMatch(/<img|@everyone|\]\(https/);
    }
    expect(third?.body).toContain('<code>Loja 3 &lt;img src=x onerror=alert(1)&gt; @everyone [x](https://evil.example)</code>');
    // No secret of the run: the stores' tokens are nowhere in the file.
    const text = readFileSync(path.join(dir, 'out/notify.json'), 'utf8');
    for (const store of stores) expect(text).not.toContain(store.emulator.token);
  });

  it("keeps each store's drifted records, fields and attribution in the snapshot the dashboard reads", async () => {
    const [latest] = (await localDriftResults({ cwd: dir }).list('2000-01-01T00:00:00Z')).slice(-1);
    const row = (target: string) => latest?.rows.find((r) => r.target === target);
    expect(row('lojas/loja-01')).toMatchObject({ changes: 1, owners: ['maria', '@agencia/suporte'], drifted: [{ type: 'modified', kind: 'situacoes', key: 'Vendas > Aguardando pagamento', fields: ['cor'], attribution: { by: 'erp' } }] });
    expect(row('lojas/loja-03')?.drifted?.map((d) => [d.type, d.key])).toEqual([
      ['missing', 'Loja 3'],
      ['unmanaged', hostile],
    ]);
    expect(row('lojas/loja-04')).toMatchObject({ changes: 0, drifted: [] });
  });

  it('report --html tells what drifted on each store and who changed it, read from the state store or from a kept --json file alike', async () => {
    const json = await runCli(['drift', '--all-targets', '--json'], { cwd: dir, env });
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'erpsync-fleet-drift-kept-'));
    try {
      writeFileSync(path.join(elsewhere, `drift-${new Date().toISOString().slice(0, 10)}.json`), json.stdout);
      const fromStore = await dashboardOf(dir, []);
      const fromFile = await dashboardOf(elsewhere, ['--drift', '.']);
      for (const model of [fromStore, fromFile]) {
        expect(model.stores.find((s) => s.name === 'lojas/loja-01')).toMatchObject({
          drift: 'drifted',
          owners: ['maria', '@agencia/suporte'],
          records: [{ title: 'Modified in the ERP', record: 'situacoes "Vendas > Aguardando pagamento"', fields: ['cor'], by: expect.stringMatching(/^changed in the ERP since erpsync run \S+ /) }],
        });
        expect(model.stores.find((s) => s.name === 'lojas/loja-03')?.records?.map((r) => r.record)).toEqual(['gruposProdutos "Loja 3"', `gruposProdutos "${hostile}"`]);
      }
      // The journal beside the state store names the run's commit and actor; a file alone cannot.
      expect(fromStore.stores.find((s) => s.name === 'lojas/loja-01')?.records?.[0]?.by).toMatch(/\(that run applied [0-9a-f]{12}, by .+\)$/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("gives every store's report as JSON that its published schema takes, in text under each store's account line, and as JUnit", async () => {
    const json = await runCli(['drift', '--all-targets', '--json'], { cwd: dir, env });
    expect(json.code).toBe(2);
    const fleet = JSON.parse(json.stdout) as { rows: { target: string; changes: number }[]; stores: FleetDriftStore[] };
    expect(validateFleet(fleet), JSON.stringify(validateFleet.errors)).toBe(true);
    expect(fleet.rows.map((r) => r.changes)).toEqual([1, 2, 2, 0]);
    expect(fleet.stores[0]?.report?.findings).toEqual([
      expect.objectContaining({ type: 'modified', kind: 'situacoes', key: 'Vendas > Aguardando pagamento', fields: [{ path: 'cor', manifest: '#f5a623', account: '#ff0000' }], attribution: expect.objectContaining({ by: 'erp' }) }),
    ]);
    expect(validateFleet({ ...fleet, stores: [{ ...fleet.stores[0], surprise: 1 }] })).toBe(false);

    const text = await runCli(['drift', '--all-targets'], { cwd: dir, env });
    expect(text.stdout).toMatch(/== lojas\/loja-01 ==\nAccount: Loja 1 Ltda \(CNPJ 11\.111\.111\/0001-01\)[^\n]*\nDrift: 1 modified [^\n]*\n\nModified in the ERP[^\n]*\n {2}~ situacoes "Vendas > Aguardando pagamento" \(id \d+\)\n {6}origin: changed in the ERP since erpsync run /);
    expect(text.stdout).toMatch(/== lojas\/loja-04 ==\nAccount: Loja 4 Ltda[^\n]*\nNo drift: the account matches the manifests/);
    expect(text.stdout).toMatch(/^lojas\/loja-02\s+Loja 2 Ltda \(CNPJ 11\.111\.111\/0001-02\)\s+2\s+2 drifted$/m);

    const junit = await runCli(['drift', '--all-targets', '--format', 'junit'], { cwd: dir, env });
    expect(junit.stdout).toMatch(/^<testsuites name="erpsync drift" tests="\d+" failures="5" errors="0" skipped="0">$/m);
    expect(junit.stdout).toContain('<testsuite name="lojas/loja-01: situacoes" tests="1" failures="1"');
    expect(junit.stdout).toMatch(/<testcase classname="erpsync\.drift\.lojas\/loja-01\.situacoes" name="Vendas &gt; Aguardando pagamento">\n {6}<failure type="modified" message="Modified in the ERP: cor">[^<]*origin: changed in the ERP since erpsync run [^<]*cor: &quot;#f5a623&quot; → &quot;#ff0000&quot;<\/failure>/);
  });

  it('keeps Markdown under --markdown-limit with the table first, and --out DIR holds every store\'s whole report', async () => {
    const whole = await runCli(['drift', '--all-targets', '--format', 'markdown'], { cwd: dir, env });
    expect(whole.stdout.startsWith('### erpsync drift: 4 store(s)\n\n| store |')).toBe(true);
    expect(whole.stdout.match(/^## erpsync drift: /gm)).toHaveLength(3);
    const cut = await runCli(['drift', '--all-targets', '--format', 'markdown', '--markdown-limit', '4000', '--out', 'reports'], { cwd: dir, env });
    expect(cut.stdout.length).toBeLessThanOrEqual(4000);
    expect(cut.stdout.startsWith('### erpsync drift: 4 store(s)\n\n| store |')).toBe(true);
    expect(cut.stdout).toMatch(/> \*\*Fleet report cut here:\*\* it shows the reports of [0-2] of the 3 stores that drifted or could not be checked.*The full reports: one file per store in reports\./);
    const report = (store: string) => readFileSync(path.join(dir, 'reports', 'lojas', `${store}.md`), 'utf8');
    expect(report('loja-03')).toContain('## erpsync drift: 1 missing, 1 unmanaged');
    expect(report('loja-04')).toContain('## erpsync drift: no drift');
    await runCli(['drift', '--all-targets', '--format', 'junit', '--out', 'reports'], { cwd: dir, env });
    expect(readFileSync(path.join(dir, 'reports', 'lojas', 'loja-01.xml'), 'utf8')).toContain('<testcase classname="erpsync.drift.situacoes" name="Vendas &gt; Aguardando pagamento">');
  });

  it("tells each store's changes pending from git apart from hand edits with --baseline, from that store's own layers", async () => {
    // Store 1's overlay gains a group in git, not applied yet: pending from git for it alone.
    write('overlays/loja-01/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Loja ${LOJA}\n  - nome: Perfumaria\n');
    git('commit', '-q', '-am', 'store 1 sells perfume');
    const run = await runCli(['drift', '--all-targets', '--json', '--baseline', 'HEAD~1'], { cwd: dir, env });
    const fleet = JSON.parse(run.stdout) as { stores: FleetDriftStore[] };
    expect(fleet.stores.map((s) => s.report?.pendingBasis)).toEqual(['baseline', 'baseline', 'baseline', 'baseline']);
    const findings = (store: FleetDriftStore | undefined) => (store?.report?.findings.map((f) => `${f.type} ${f.key}`) ?? []).sort();
    expect(findings(fleet.stores[0])).toEqual(['modified Vendas > Aguardando pagamento', 'pending Perfumaria']);
    expect(findings(fleet.stores[1])).toEqual(['missing Maquiagem', 'modified Vendas > Aguardando pagamento']);
    write('overlays/loja-01/grupos.yaml', 'version: 1\ngruposProdutos:\n  - nome: Loja ${LOJA}\n');
    git('commit', '-q', '-am', 'store 1 sells no perfume after all');
  });

  it('after the fix is applied, the next night closes every store, and a store that cannot be read gets an error, not a close', async () => {
    const applied = await runCli(['apply', '--all-targets', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const night = await runCli(['drift', '--all-targets', '--notify', 'out/notify.json'], { cwd: dir, env });
    expect(night.code, night.stdout).toBe(0);
    expect(notificationsOf('out/notify.json').notifications.map((n) => [n.target, n.action])).toEqual([
      ['lojas/loja-01', 'close'],
      ['lojas/loja-02', 'close'],
      ['lojas/loja-03', 'close'],
      ['lojas/loja-04', 'close'],
    ]);
    const broken = await runCli(['drift', '--all-targets', '--notify', 'out/notify.json'], { cwd: dir, env: { ...env, LOJA_02_TOKEN: '' } });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("== lojas/loja-02 ==\nerror: target 'lojas/loja-02' has no credentials available");
    const failed = notificationsOf('out/notify.json').notifications[1];
    expect(failed).toMatchObject({ action: 'error', title: 'erpsync drift: lojas/loja-02 could not be checked' });
    expect(failed?.body).toContain("target 'lojas/loja-02' has no credentials available");
    expect(failed?.counts).toBeUndefined();
  });

  it("gives one store's notification for one target, and lists each target's owners in `targets` and its CI matrix", async () => {
    const one = await runCli(['drift', '--target', 'lojas/loja-04', '--notify', 'out/one.json'], { cwd: dir, env });
    expect(one.code).toBe(0);
    expect(notificationsOf('out/one.json').notifications.map((n) => [n.key, n.action, n.owners])).toEqual([['erpsync-drift/lojas/loja-04', 'close', ['@agencia/suporte']]]);
    const unread = await runCli(['drift', '--target', 'lojas/loja-04', '--notify', 'out/one.json'], { cwd: dir, env: { ...env, LOJA_04_TOKEN: '' } });
    expect(unread.code).toBe(1);
    expect(notificationsOf('out/one.json').notifications.map((n) => n.action)).toEqual(['error']);

    const listed = await runCli(['targets'], { cwd: dir, env });
    expect(listed.stdout).toMatch(/^lojas\/loja-01 .* owners: maria, @agencia\/suporte$/m);
    const { include } = JSON.parse((await runCli(['targets', '--json'], { cwd: dir, env })).stdout) as { include: { target: string; owners?: string[] }[] };
    expect(include.map((job) => [job.target, job.owners])).toEqual([
      ['lojas/loja-01', ['maria', '@agencia/suporte']],
      ['lojas/loja-02', ['maria', '@agencia/suporte']],
      ['lojas/loja-03', ['@agencia/suporte']],
      ['lojas/loja-04', ['@agencia/suporte']],
    ]);
  });

  it('refuses --notify on a partial report, which would close an issue for drift it never looked at', async () => {
    const run = await runCli(['drift', '--all-targets', '--notify', 'out/partial.json', '--only', 'gruposProdutos'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--notify reports whole stores');
  });
});
