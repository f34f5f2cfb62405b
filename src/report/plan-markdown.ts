// The plan as Markdown, for a pull-request comment or the GitHub step summary: a headline, a table
// by kind and action, the deletes spelled out, then every change as a folded diff block. Pure.
// The whole text stays under a cap (GitHub refuses comments over 65,536 characters); when the
// details do not fit, it says where they were cut and where the full plan is.
import { codeSpan, fenceFor, markdownText } from './markdown-escape.js';
import { renderPlanText, summarizePlan } from '../report/render-plan.js';
import type { KindAdapter } from '../kinds/kind.js';
import type { Change, ChangeAction, Plan } from '../model/plan.js';
import { describeSelection } from '../model/selection.js';
import { removesRecord } from '../model/plan.js';

const markdownCap = 60_000;

export interface PlanMarkdownOptions {
  adapters: readonly KindAdapter[];
  /** Longest text returned, in characters. */
  maxChars?: number;
  /** Where the reader finds the full plan when the details are cut (e.g. the saved plan file). */
  fullPlanAt?: string | undefined;
  /** false: no heading or target line (a fleet's section of the store names both). */
  headed?: boolean;
}

/** Deletes named one by one above the details; past this the list is counted. */
const removalsListed = 200;

const actions: readonly ChangeAction[] = ['create', 'update', 'set-status', 'set-default', 'delete', 'retire', 'blocked'];

/** `` - `gruposProdutos` `Perfumaria`: delete (tombstone, id 12) ``, under `prefix` (a fleet names the store). */
export function describeRemoval(change: Change, prefix = ''): string {
  return `- ${prefix}${codeSpan(change.kind)} ${codeSpan(change.key)}: ${change.action} (${change.reason}${change.liveId !== undefined ? `, id ${change.liveId}` : ''})`;
}

export function renderPlanMarkdown(plan: Plan, options: PlanMarkdownOptions): string {
  const maxChars = options.maxChars ?? markdownCap;
  const head: string[] = [];
  const target = `${codeSpan(plan.target.name)} (${codeSpan(plan.target.id)})`;
  // A targeted plan says so first: what it leaves out is not "in sync".
  const partial = plan.selection ? ` (partial: ${codeSpan(describeSelection(plan.selection))})` : '';
  if (plan.changes.length === 0) {
    head.push(`### erpsync plan${partial}: no changes`, '', partial ? `No change in the selection on ${target}.` : `The account ${target} matches the manifests.`);
    return `${head.join('\n')}\n`;
  }
  if (options.headed !== false) head.push(`### erpsync plan${partial}: ${summarizePlan(plan)}`, '', `Target: ${target}`, '');
  else if (plan.selection) head.push(`Partial: ${codeSpan(describeSelection(plan.selection))}`, '');
  const kinds = [...new Set(plan.changes.map((c) => c.kind))];
  head.push(`| kind | ${actions.join(' | ')} |`, `|---|${actions.map(() => '---:').join('|')}|`);
  for (const kind of kinds) {
    const cells = actions.map((action) => {
      const n = plan.changes.filter((c) => c.kind === kind && c.action === action).length;
      return n === 0 ? '–' : String(n);
    });
    head.push(`| ${codeSpan(kind)} | ${cells.join(' | ')} |`);
  }
  const removals = plan.changes.filter(removesRecord);
  if (removals.length > 0) {
    head.push('', `> [!WARNING]`, `> ${removals.length} record(s) will be deleted or retired:`, '');
    head.push(...removals.slice(0, removalsListed).map((change) => describeRemoval(change)));
    if (removals.length > removalsListed) head.push(`- … and ${removals.length - removalsListed} more (see the details)`);
  }
  for (const warning of plan.warnings) head.push('', `> [!NOTE]`, `> ${markdownText(warning)}`);
  const { reads, writes, verifyReads = 0, seconds, rate } = plan.cost;
  const readBack = verifyReads > 0 ? ` and ${verifyReads} read(s) to verify them` : '';
  head.push('', `Cost: ${reads} read request(s); ${writes} write(s) planned${readBack}, about ${seconds} s at ${rate} req/s.`, '');

  const detail = renderPlanText(plan, { adapters: options.adapters });
  const fence = fenceFor(detail);
  const open = [`<details><summary>Details of ${plan.changes.length} change(s)</summary>`, '', `${fence}diff`];
  const close = [fence, '', '</details>'];
  const full = [...head, ...open, ...detail, ...close].join('\n');
  if (full.length + 1 <= maxChars) return `${full}\n`;

  // Cut the details at a line boundary, leaving room for the note that says so.
  const where = options.fullPlanAt ? `the full plan is in ${codeSpan(options.fullPlanAt)}` : 'run `erpsync plan` for the full plan';
  const noteFor = (shown: number) => `**Cut at ${maxChars.toLocaleString('en-US')} characters** after ${shown} of ${detail.length} detail lines; ${where}.`;
  const fixed = [...head, ...open, ...close, '', noteFor(detail.length)].join('\n').length + 1;
  let budget = maxChars - fixed;
  let shown = 0;
  while (shown < detail.length && budget - ((detail[shown]?.length ?? 0) + 1) >= 0) {
    budget -= (detail[shown]?.length ?? 0) + 1;
    shown += 1;
  }
  const cut = [...head, ...open, ...detail.slice(0, shown), ...close, '', noteFor(shown)].join('\n');
  return `${cut.slice(0, maxChars - 1)}\n`;
}
