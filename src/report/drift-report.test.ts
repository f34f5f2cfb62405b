// The drift reporters on hand-made reports: markdown stays under its cap and says where it was
// cut and where the full report is, for one store and for a fleet of 1,000 (the table first);
// JUnit escapes what XML cannot hold and counts right; text says "no drift" plainly; a store's
// notification keeps its body under GitHub's limit and opens, closes or leaves its issue.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { renderDriftJunit } from './drift-junit.js';
import { renderDriftMarkdown } from './drift-markdown.js';
import { renderDriftText } from './drift-text.js';
import type { DriftFinding, DriftReport, FleetDriftStore } from '../model/drift.js';
import type { FleetReport } from '../model/fleet.js';
import { renderFleetDriftMarkdown } from './drift-fleet.js';
import { buildDriftNotifications, notificationBodyLimit } from './drift-notify.js';

const options = { adapters: registry.units };

function reportWith(findings: DriftFinding[], managed: DriftReport['managed'] = []): DriftReport {
  const count = (type: DriftFinding['type']) => findings.filter((f) => f.type === type).length;
  return {
    formatVersion: 1,
    target: { mode: 'remote', id: 'https://api.example', name: 'loja', account: { id: 'test-account', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' } },
    manifestDigest: 'd',
    pendingBasis: 'manifest-intent',
    kinds: ['formasPagamentos', 'gruposProdutos'],
    includeBuiltin: false,
    summary: {
      managed: managed.length,
      inSync: managed.filter((m) => m.status === 'in-sync').length,
      modified: count('modified'),
      missing: count('missing'),
      unmanaged: count('unmanaged'),
      pending: count('pending'),
      ignored: 0,
      accountOwn: 0,
    },
    findings,
    managed,
    ignored: [],
    reads: 3,
    warnings: [],
  };
}

function unmanagedGroup(n: number): DriftFinding {
  const name = `Grupo ${String(n).padStart(4, '0')}`;
  return { type: 'unmanaged', kind: 'gruposProdutos', key: name, liveId: n, fields: [], actions: [], snippet: `gruposProdutos:\n  - nome: ${name}\n` };
}

describe('renderDriftMarkdown', () => {
  it('is the whole report when it fits', () => {
    const report = reportWith([unmanagedGroup(1)]);
    const markdown = renderDriftMarkdown(report, options);
    expect(markdown).toContain('## erpsync drift: 1 unmanaged');
    expect(markdown).toContain('```yaml\ngruposProdutos:\n  - nome: Grupo 0001\n```');
    expect(markdown).not.toContain('Report cut here');
  });

  it('is cut between findings under 60,000 characters, saying where and where the full report is', () => {
    const report = reportWith(Array.from({ length: 1500 }, (_, i) => unmanagedGroup(i + 1)));
    const markdown = renderDriftMarkdown(report, { ...options, fullReport: 'the `drift-report` artifact of this run' });
    expect(markdown.length).toBeLessThanOrEqual(60_000);
    const shown = markdown.split('<details>').length - 1;
    expect(markdown.split('</details>').length - 1).toBe(shown);
    expect(shown).toBeGreaterThan(100);
    expect(shown).toBeLessThan(1500);
    const last = `Grupo ${String(shown).padStart(4, '0')}`;
    expect(markdown.trimEnd().split('\n').at(-1)).toBe(
      `> **Report cut here:** it shows ${shown} of 1500 findings (the last one shown is \`gruposProdutos\` \`${last}\` under Unmanaged), to stay under 60,000 characters. The full report: the \`drift-report\` artifact of this run.`,
    );
  });

  it('honours a smaller limit, and keeps table cells intact whatever the values hold', () => {
    const odd: DriftFinding = {
      type: 'modified',
      kind: 'formasPagamentos',
      key: 'A | B `c`',
      liveId: 1,
      fields: [{ path: 'condicao', manifest: 'x|y', account: 'line\nbreak' }],
      actions: ['update'],
    };
    const markdown = renderDriftMarkdown(reportWith([odd, ...Array.from({ length: 50 }, (_, i) => unmanagedGroup(i))]), { ...options, maxChars: 2_000 });
    expect(markdown.length).toBeLessThanOrEqual(2_000);
    expect(markdown).toContain('| `formasPagamentos` | <code>A &#124; B `c`</code> | 1 | `condicao`: <code>"x&#124;y"</code> → `"line\\nbreak"` |');
    expect(markdown).toContain('The full report: run `erpsync drift`');
  });
});

describe('renderDriftJunit', () => {
  it('has a test case per managed record and per unmanaged one, failures and skips counted, XML escaped', () => {
    const report = reportWith(
      [
        { type: 'modified', kind: 'formasPagamentos', key: 'Pix <"&">', liveId: 1, fields: [{ path: 'juros', manifest: 0, account: 1 }], actions: ['update'] },
        { ...unmanagedGroup(2), snippet: 'gruposProdutos:\n  - nome: bell\u0007\n' },
      ],
      [
        { kind: 'formasPagamentos', key: 'Pix <"&">', liveId: 1, ensure: 'present', status: 'drifted' },
        { kind: 'formasPagamentos', key: 'Boleto', liveId: 3, ensure: 'present', status: 'in-sync' },
        { kind: 'gruposProdutos', key: 'Revenda', liveId: 4, ensure: 'present', status: 'ignored', ignoredBecause: 'owned by "sales"' },
      ],
    );
    const xml = renderDriftJunit(report, options);
    expect(xml).toContain('<testsuites name="erpsync drift" tests="4" failures="2" errors="0" skipped="1">');
    expect(xml).toContain('<testcase classname="erpsync.drift.formasPagamentos" name="Pix &lt;&quot;&amp;&quot;&gt;">');
    expect(xml).toContain('<testcase classname="erpsync.drift.formasPagamentos" name="Boleto"/>');
    expect(xml).toContain('<skipped message="ignored by policy: owned by &quot;sales&quot;"/>');
    expect(xml).toContain('name="Grupo 0002 (unmanaged)"');
    expect(xml).toContain('nome: bell\ufffd</failure>');
  });
});

describe('renderDriftText', () => {
  it('says plainly when there is no drift', () => {
    const lines = renderDriftText(reportWith([], [{ kind: 'gruposProdutos', key: 'Revenda', ensure: 'present', status: 'in-sync' }]), options);
    expect(lines[0]).toBe('No drift: the account matches the manifests (1 managed record, 1 in sync).');
  });
});

/** A store of a fleet with its report (or none: it could not be checked), its table row beside it. */
function fleetOf(reports: (DriftReport | undefined)[]): { stores: FleetDriftStore[]; report: FleetReport } {
  const name = (i: number) => `lojas/loja-${String(i + 1).padStart(4, '0')}`;
  const stores = reports.map((r, i): FleetDriftStore => ({ target: name(i), owners: ['maria'], ...(r ? { report: { ...r, target: { ...r.target, name: name(i) } } } : { error: 'the account could not be read' }), exitCode: r ? 2 : 1 }));
  const rows = stores.map((s) => ({ target: s.target, account: { id: 'a', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' }, changes: s.report?.findings.length ?? 0, ...(s.error ? { error: s.error } : {}), exitCode: s.exitCode, seconds: 0.1 }));
  return { stores, report: { command: 'drift', rows, exitCode: 1, seconds: 2 } };
}

describe('renderFleetDriftMarkdown', () => {
  it('keeps 1,000 drifted stores under the limit: a table of as many as fit first, then reports, then where the rest is', () => {
    const { stores, report } = fleetOf(Array.from({ length: 1000 }, (_, i) => reportWith([unmanagedGroup(i), unmanagedGroup(i + 1)])));
    const markdown = renderFleetDriftMarkdown(stores, report, { ...options, fullReport: 'the `drift` artifact' });
    expect(markdown.length).toBeLessThanOrEqual(60_000);
    expect(markdown.startsWith('### erpsync drift: 1000 store(s)\n\n| store |')).toBe(true);
    const tableRows = markdown.split('\n').filter((line) => line.startsWith('| lojas/')).length;
    expect(tableRows).toBeGreaterThan(200);
    expect(markdown).toContain(`_This table lists ${tableRows} of the 1000 stores that drifted or failed (and none of the 0 in sync), to stay under 60,000 characters. The full reports: the \`drift\` artifact._`);
    expect(markdown).toContain('Fleet drift: 1000 store(s), 1000 drifted, 0 failed');
    expect(markdown.indexOf('## erpsync drift: 2 unmanaged')).toBeGreaterThan(markdown.indexOf('Fleet drift: 1000 store(s)'));
    expect(markdown.trimEnd().split('\n').at(-1)).toMatch(/^> \*\*Fleet report cut here:\*\* it shows the reports of \d+ of the 1000 stores that drifted or could not be checked, to stay under 60,000 characters\. The full reports: the `drift` artifact\.$/);
  });

  it('lists only the stores that drifted or failed when the whole table is too long, and shows all their reports when they fit', () => {
    const { stores, report } = fleetOf(Array.from({ length: 1000 }, (_, i) => (i === 7 ? undefined : reportWith(i % 200 === 3 ? [unmanagedGroup(i)] : []))));
    const markdown = renderFleetDriftMarkdown(stores, report, options);
    expect(markdown.length).toBeLessThanOrEqual(60_000);
    expect(markdown.split('\n').filter((line) => line.startsWith('| lojas/')).map((line) => line.split(' | ')[0])).toEqual(['| lojas/loja-0004', '| lojas/loja-0008', '| lojas/loja-0204', '| lojas/loja-0404', '| lojas/loja-0604', '| lojas/loja-0804']);
    expect(markdown).toContain('_The 994 store(s) in sync are left out of this table, to keep it short._');
    expect(markdown.match(/^## erpsync drift: /gm)).toHaveLength(6);
    expect(markdown).toContain('## erpsync drift: lojas/loja-0008 could not be checked\n\nthe account could not be read');
    expect(markdown).not.toContain('cut here');
  });
});

describe('buildDriftNotifications', () => {
  const at = '2026-01-07T03:00:00.000Z';
  it('opens for a store that drifted, under the body limit with a cut note; no secret value in any field', () => {
    const secret: DriftFinding = { type: 'modified', kind: 'configuracoesNfse', key: 'configuracoesNfse', fields: [{ path: 'cadastroPrefeitura.senha', manifest: undefined, account: undefined, sensitive: true }], actions: ['update'] };
    const { stores } = fleetOf([reportWith([secret, ...Array.from({ length: 3000 }, (_, i) => unmanagedGroup(i))])]);
    const [open] = buildDriftNotifications(stores, { ...options, at, fullReportOf: () => 'https://ci.example/run/7' }).notifications;
    expect(open?.action).toBe('open');
    expect(open?.body.length).toBeLessThanOrEqual(notificationBodyLimit);
    expect(open?.body).toContain('`cadastroPrefeitura.senha`: (sensitive) differs');
    expect(open?.body).toMatch(/> \*\*Report cut here:\*\* it shows \d+ of 3001 findings .*The full report: https:\/\/ci\.example\/run\/7\.\n$/);
    expect(open).toMatchObject({ key: 'erpsync-drift/lojas/loja-0001', owners: ['maria'], assignees: ['maria'], labels: ['erpsync-drift'], counts: { records: 3001, modified: 1, unmanaged: 3000 } });
  });

  it('closes a store in sync and leaves a store that could not be checked as it is (error)', () => {
    const { stores } = fleetOf([reportWith([]), undefined]);
    const [closed, failed] = buildDriftNotifications(stores, { ...options, at }).notifications;
    expect(closed).toMatchObject({ action: 'close', title: 'erpsync drift: lojas/loja-0001 is back in sync', text: 'erpsync drift: store lojas/loja-0001 is in sync.' });
    expect(failed).toMatchObject({ action: 'error', title: 'erpsync drift: lojas/loja-0002 could not be checked' });
    expect(failed?.counts).toBeUndefined();
    expect(failed?.body).toContain('could not be checked for drift (2026-01-07T03:00:00.000Z): the account could not be read');
  });
});
