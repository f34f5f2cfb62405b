// The plan as Markdown for pull requests: headline, table, deletes, folded details, and the cap.
import { describe, expect, it } from 'vitest';
import { registry } from '../kinds/registry.js';
import { makeChange, makePlan } from '../../test/ui/support/plans.js';
import { renderPlanMarkdown } from './plan-markdown.js';

describe('renderPlanMarkdown', () => {
  it('says there is nothing to do', () => {
    expect(renderPlanMarkdown(makePlan([]), { adapters: registry.units })).toBe(
      '### erpsync plan: no changes\n\nThe account `sandbox` (`sandbox:.erpsync/sandbox.json`) matches the manifests.\n',
    );
  });

  it('has the summary, a table by kind and action, the deletes spelled out and the details folded', () => {
    const text = renderPlanMarkdown(makePlan([makeChange('create', 'Maquiagem', 1), makeChange('delete', 'Antigo', 2, { liveId: 7 })]), { adapters: registry.units });
    const lines = text.split('\n');
    expect(lines[0]).toBe('### erpsync plan: 1 to create, 1 to delete');
    expect(lines).toContain('| kind | create | update | set-status | set-default | delete | retire | blocked |');
    expect(lines).toContain('| `gruposProdutos` | 1 | – | – | – | 1 | – | – |');
    expect(lines).toContain('> 1 record(s) will be deleted or retired:');
    expect(lines).toContain('- `gruposProdutos` `Antigo`: delete (prune, id 7)');
    expect(lines).toContain('<details><summary>Details of 2 change(s)</summary>');
    expect(lines).toContain('+ gruposProdutos "Maquiagem" — create: not in the account (wave 1)');
    expect(lines).toContain('    nome: "Maquiagem"');
    expect(text.endsWith('```\n\n</details>\n')).toBe(true);
  });

  it('fences text that itself holds backticks', () => {
    const text = renderPlanMarkdown(makePlan([makeChange('delete', 'A ```b``` c', 1, { liveId: 1 })]), { adapters: registry.units });
    expect(text).toContain('\n````diff\n');
    expect(text).toContain('- `gruposProdutos` ````A ```b``` c````: delete (prune, id 1)');
  });

  it('stays under the cap, cut at a line, and says where the full plan is', () => {
    const changes = Array.from({ length: 400 }, (_, i) => makeChange('create', `Grupo número ${i}`, 1));
    const plan = makePlan(changes);
    const full = renderPlanMarkdown(plan, { adapters: registry.units });
    expect(full.length).toBeGreaterThan(20_000);
    const cut = renderPlanMarkdown(plan, { adapters: registry.units, maxChars: 20_000, fullPlanAt: 'plan.json' });
    expect(cut.length).toBeLessThanOrEqual(20_000);
    expect(cut).toMatch(/\*\*Cut at 20,000 characters\*\* after \d+ of \d+ detail lines; the full plan is in `plan.json`\.\n$/);
    expect(cut).toContain('</details>');
    const shown = cut.split('\n').filter((line) => line.startsWith('+ gruposProdutos'));
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length).toBeLessThan(400);
    expect(full.startsWith(cut.slice(0, cut.indexOf('<details>')))).toBe(true);
  });
});
