// A fleet's plan cut into pull-request comments: every comment within the limit as GitHub counts
// (UTF-16 code units), the table first, removals before any other change, each store folded, a
// store too large for any comment cut with a note naming its saved plan, no secret and no markup
// from a name.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import type { FleetReport, FleetRow } from '../model/fleet.js';
import type { Change, Plan } from '../model/plan.js';
import { makeChange, makePlan } from '../../test/ui/support/plans.js';
import type { FleetPlanStore } from './fleet-plan-markdown.js';
import { fleetPlanSections, renderFleetPlanMarkdown } from './fleet-plan-markdown.js';
import { splitIntoComments } from './plan-comments.js';

const account = { id: 'acc', nome: 'Loja Teste Ltda', cnpj: '12.345.678/0001-90' };

function store(target: string, changes: Change[], extra: Partial<FleetPlanStore> = {}): FleetPlanStore {
  const plan: Plan = { ...makePlan(changes), target: { mode: 'sandbox', id: `sandbox:${target}`, name: target, account } };
  const row: FleetRow = { target, account, changes: changes.filter((c) => c.action !== 'blocked').length, exitCode: 0, seconds: 0.1 };
  return { target, row, plan, banner: `Account: Loja Teste Ltda · target ${target}`, savedPlan: `plans/${target}.json`, ...extra };
}

function reportOf(stores: readonly FleetPlanStore[]): FleetReport {
  return { command: 'plan', rows: stores.map((s) => s.row), exitCode: 0, seconds: 1 };
}

/** The text outside code blocks and code spans: what GitHub renders as Markdown. */
function outsideCodeBlocks(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .filter((line) => {
      const opens = /^(`{3,})/.exec(line)?.[1];
      if (fence === undefined && opens) fence = opens;
      else if (fence !== undefined && line === fence) fence = undefined;
      else return fence === undefined;
      return false;
    })
    .join('\n')
    .replace(/(`+)[^`].*?\1/g, '');
}

const name = (i: number) => `lojas/loja-${String(i).padStart(3, '0')}`;

/** 300 stores, 20 of them changed: creates, updates (many fields), a delete in 3, a blocked change in 1. */
function fleet(): FleetPlanStore[] {
  return Array.from({ length: 300 }, (_, index) => {
    const i = index + 1;
    if (i % 15 !== 0) return store(name(i), []);
    const fields = Array.from({ length: 40 }, (_, f) => ({ path: `campo${f}`, before: `valor antigo ${f}`, after: `valor novo ${f}` }));
    const changes = [
      ...Array.from({ length: 30 }, (_, c) => makeChange('create', `Grupo ${i}-${c}`, 1)),
      ...Array.from({ length: 10 }, (_, c) => makeChange('update', `Atualizado ${i}-${c}`, 1, { liveId: 100 + c, fields })),
      ...(i <= 45 ? [makeChange('delete', `Removido ${i}`, 2, { liveId: 9 })] : []),
      ...(i === 60 ? [makeChange('blocked', `Protegido ${i}`, 1, { liveId: 8, reason: 'protected', note: 'protect: true' })] : []),
    ];
    return store(name(i), changes);
  });
}

describe('plan comments', () => {
  const stores = fleet();
  const changed = stores.filter((s) => (s.plan?.changes.length ?? 0) > 0).map((s) => s.target);

  it('cuts the fleet into comments under the limit, the table first, removals before any other change', () => {
    const comments = splitIntoComments(fleetPlanSections(stores, reportOf(stores), registry.units), 20_000);
    expect(comments.length).toBeGreaterThan(3);
    for (const comment of comments) {
      expect(comment.text.length).toBeLessThanOrEqual(20_000);
      expect(comment.text.startsWith(`<!-- erpsync-plan-comment part=${comment.part} of=${comments.length} -->\n`)).toBe(true);
    }
    const first = comments[0]?.text ?? '';
    expect(first.split('\n')[1]).toBe('### erpsync plan: 300 store(s), 20 with changes, 1 with blocked changes, 0 failed');
    const rows = first.split('\n').filter((line) => line.startsWith('| lojas/'));
    expect(rows.map((row) => row.split(' | ')[0]?.slice(2))).toEqual(changed);
    expect(rows).toContain('| lojas/loja-060 | Loja Teste Ltda (CNPJ 12.345.678/0001-90) | 30 | 10 | – | 1 | – |');
    expect(rows).toContain('| lojas/loja-015 | Loja Teste Ltda (CNPJ 12.345.678/0001-90) | 30 | 10 | 1 | – | – |');
    expect(first).toContain('280 store(s) unchanged, not listed.');
    expect(first).toContain('- `lojas/loja-060` · `gruposProdutos` `Protegido 60`: blocked (protected): protect: true');

    const all = comments.map((c) => c.text).join('');
    const removals = ['Removido 15', 'Removido 30', 'Removido 45'].map((key) => all.indexOf(`\`${key}\`: delete`));
    const firstUpdate = all.indexOf('— update:');
    for (const at of removals) expect(at).toBeGreaterThan(0);
    expect(Math.max(...removals)).toBeLessThan(firstUpdate);
    // Each changed store's details whole, in one comment, in the table's order.
    expect(comments.flatMap((c) => c.stores)).toEqual(changed);
    for (const comment of comments) {
      for (const target of comment.stores) expect(comment.text).toContain(`<details><summary><code>${target}</code>`);
      expect(comment.text.split('<details>').length).toBe(comment.text.split('</details>').length);
    }
  });

  it('cuts a store whose details alone exceed a comment, naming its saved plan', () => {
    const fields = Array.from({ length: 60 }, (_, f) => ({ path: `campo${f}`, before: 'a'.repeat(50), after: 'b'.repeat(50) }));
    const huge = store('lojas/enorme', Array.from({ length: 30 }, (_, c) => makeChange('update', `Registro ${c}`, 1, { liveId: c + 1, fields })));
    const comments = splitIntoComments(fleetPlanSections([huge], reportOf([huge]), registry.units), 10_000);
    expect(comments.map((c) => c.stores)).toEqual([[], ['lojas/enorme']]);
    for (const comment of comments) expect(comment.text.length).toBeLessThanOrEqual(10_000);
    expect(comments[1]?.text).toMatch(/\*\*Cut at [\d,]+ characters\*\* after \d+ of \d+ detail lines; the full plan is in `plans\/lojas\/enorme.json`\.\n\n<\/details>\n$/);
  });

  it('goes on with the table in the next comment under its heading when a thousand stores changed', () => {
    const many = Array.from({ length: 1000 }, (_, i) => store(`lojas/uma-loja-de-nome-comprido-${String(i).padStart(4, '0')}`, [makeChange('create', 'Novo', 1)]));
    const comments = splitIntoComments(fleetPlanSections(many, reportOf(many), registry.units), 10_000);
    for (const comment of comments) expect(comment.text.length).toBeLessThanOrEqual(10_000);
    const rows = comments.flatMap((c) => c.text.split('\n').filter((line) => line.startsWith('| lojas/')));
    expect(rows).toHaveLength(1000);
    const second = comments[1]?.text.split('\n') ?? [];
    expect(second.slice(1, 6)).toEqual(['_erpsync plan, part 2 of ' + comments.length + ', continued_', '**Summary table (continued)**', '', '| store | account | creates | updates | deletes | blocked | error |', '|---|---|---:|---:|---:|---:|---|']);
  });

  it('counts as GitHub does: a character beyond the basic plane is two code units', () => {
    const wide = Array.from({ length: 40 }, (_, i) => store(`lojas/l${i}`, Array.from({ length: 60 }, (_, c) => makeChange('create', `Grupo 😀😀😀😀 ${c}`, 1))));
    const comments = splitIntoComments(fleetPlanSections(wide, reportOf(wide), registry.units), 10_000);
    expect(comments.length).toBeGreaterThan(2);
    for (const comment of comments) {
      expect(comment.text.length).toBeLessThanOrEqual(10_000);
      // No half of a surrogate pair at a cut.
      expect(comment.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('shows no secret, and no name of the account or the manifests becomes markup', () => {
    const hostile = store('lojas/a', [
      makeChange('update', '<!-- esconde --> @alguem [link](https://evil.example)', 1, { liveId: 1, fields: [{ path: 'cadastroPrefeitura.senha', before: 'segredo-antigo', after: 'segredo-novo', sensitive: true }] }),
      makeChange('delete', '</details><img src=x>', 2, { liveId: 2 }),
    ], { banner: 'Account: <b>Loja</b> @dono' });
    const failed: FleetPlanStore = { target: 'lojas/b', row: { target: 'lojas/b', changes: 0, exitCode: 1, seconds: 0, error: 'the service said <script>alert(1)</script>' }, banner: 'lojas/b: failed' };
    const text = splitIntoComments(fleetPlanSections([hostile, failed], reportOf([hostile, failed]), registry.units), 65_000).map((c) => c.text).join('');
    expect(text).not.toContain('segredo');
    expect(text).toContain('cadastroPrefeitura.senha: (sensitive) changed');
    // Inside code, `<!--`, tags and `@` are shown as written.
    const rendered = outsideCodeBlocks(text);
    expect(rendered.match(/<!--/g)).toHaveLength(1);
    expect(rendered).not.toMatch(/<(script|img|b)\b/);
    expect(rendered).not.toMatch(/@(alguem|dono)/);
    expect(rendered.split('<details>').length).toBe(rendered.split('</details>').length);
    expect(text).toContain('| lojas/b | — | – | – | – | – | the service said &lt;script&gt;alert(1)&lt;/script&gt; |');
  });

  it('prints the same sections whole for plan --format markdown, the table first', () => {
    const text = renderFleetPlanMarkdown(stores, reportOf(stores), registry.units);
    expect(text.startsWith('### erpsync plan: 300 store(s)')).toBe(true);
    expect(text.indexOf('| lojas/loja-015 |')).toBeLessThan(text.indexOf('#### Removals'));
    expect(text.indexOf('#### Removals')).toBeLessThan(text.indexOf('<details>'));
  });
});
