// The drift reporters on hand-made reports: markdown stays under its cap and says where it was
// cut and where the full report is; JUnit escapes what XML cannot hold and counts right; text
// says "no drift" plainly.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { renderDriftJunit } from './drift-junit.js';
import { renderDriftMarkdown } from './drift-markdown.js';
import { renderDriftText } from './drift-text.js';
import type { DriftFinding, DriftReport } from '../model/drift.js';

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
