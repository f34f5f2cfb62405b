// `erpsync history`: the journal's runs as text lines or JSON — the list (one line a run: when,
// where, who, from which revision, how it ended; a damaged run with what is wrong in it) and one
// run's changes field by field, each with its true outcome. Pure: the runs come in, lines or a
// JSON value go out. Account text is data: every string from the journal goes through printable()
// on its way to a terminal.
import type { DamagedRun, JournalChangeLine, JournalListing, JournalRun } from '../model/journal.js';
import { actorOfRun, commitOfRun } from '../model/journal.js';
import type { FieldChange, GitRevision } from '../model/plan.js';
import { printable } from '../model/printable.js';

/** A run in one JSON object: what the list shows. */
export function summarizeRun(run: JournalRun) {
  const { header } = run;
  const count = (outcome: JournalChangeLine['outcome']) => run.changes.filter((c) => c.outcome === outcome).length;
  return {
    run: header.run,
    startedAt: header.startedAt,
    ...(run.end ? { endedAt: run.end.at } : {}),
    status: run.status,
    target: header.target.name,
    account: header.account,
    source: header.source,
    /** The commit the run applied (its saved plan's, else its checkout's) and who ran it, as the dashboard shows them. */
    commit: commitOfRun(header)?.revision ?? null,
    by: actorOfRun(header) ?? null,
    git: header.git,
    ...(header.planGit === undefined ? {} : { planGit: header.planGit }),
    ...(header.template === undefined ? {} : { template: header.template }),
    actor: header.actor,
    erpsyncVersion: header.erpsyncVersion,
    ...(run.runner === undefined ? {} : { runner: run.runner }),
    ...(header.fleet === undefined ? {} : { fleet: header.fleet }),
    planned: header.changes,
    applied: count('applied'),
    notKept: count('not-kept'),
    failed: count('failed'),
    skipped: count('skipped'),
    unknown: count('unknown') + run.unfinished.length,
    file: run.file,
    trust: run.trust,
    ...(run.notes.length > 0 ? { notes: run.notes } : {}),
  };
}

/** Who started the run: the CI user and job, or the local user and host. */
export function describeActor(run: JournalRun): string {
  const actor = run.header.actor;
  return actor.type === 'ci' ? `${actor.user ? `${actor.user} ` : ''}${actor.url ?? 'CI'}` : `${actor.user ?? 'unknown user'}${actor.host ? `@${actor.host}` : ''}`;
}

function describeRevision(git: GitRevision | null): string {
  return git ? `${git.revision.slice(0, 12)}${git.dirty ? ' (dirty)' : ''}` : 'not in git';
}

/** The commit a run applied: a saved plan's, and the checkout's when it applied elsewhere; the template store of --from-target. */
export function describeGit(run: JournalRun): string {
  const { git, planGit, template, source } = run.header;
  const from = template === undefined ? '' : ` from target ${template}`;
  if (planGit === undefined) return `${git || source !== 'saved-plan' ? describeRevision(git) : 'saved plan'}${from}`;
  const planned = describeRevision(planGit);
  const applied = describeRevision(git);
  return `${planned === applied ? planned : `planned at ${planned}, applied at ${applied}`}${from}`;
}

/** A damaged run in one line: its first problem, and how many more `erpsync history RUN` shows. */
export function describeDamage(damaged: DamagedRun): string {
  const [first = '', ...rest] = damaged.problems;
  return `${first}${rest.length > 0 ? ` (and ${rest.length} more: \`erpsync history ${damaged.run}\`)` : ''}`;
}

/** One line a run, oldest first; damaged runs among them, each with what is wrong. */
export function renderHistoryText(listing: JournalListing): string[] {
  if (listing.runs.length === 0 && listing.damaged.length === 0) return ['No runs in the journal yet: every `erpsync apply` that changes something adds one.'];
  const lines = [
    ...listing.runs.map((run) => {
      const s = summarizeRun(run);
      const counts = [`${s.applied} applied`, ...(s.notKept ? [`${s.notKept} not kept`] : []), ...(s.failed ? [`${s.failed} failed`] : []), ...(s.skipped ? [`${s.skipped} skipped`] : []), ...(s.unknown ? [`${s.unknown} unknown`] : [])].join(', ');
      return { id: s.run, text: printable(`${s.run}  ${s.startedAt.slice(0, 19).replace('T', ' ')}Z  ${s.target}  ${s.status}  ${counts}  ${describeGit(run)}  by ${describeActor(run)}${run.runner === undefined ? '' : `  on ${run.runner}`}${s.fleet === undefined ? '' : `  fleet ${s.fleet}`}${run.trust === 'unanchored' ? '  (unanchored)' : ''}`) };
    }),
    ...listing.damaged.map((damaged) => ({ id: damaged.run, text: printable(`${damaged.run || '(no run)'}  damaged  ${describeDamage(damaged)}`) })),
  ];
  return lines.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((line) => line.text);
}

/** What the journal's checks say of a run. */
function describeTrust(run: JournalRun): string {
  return run.trust === 'verified'
    ? '  evidence: verified (every line chains and matches what the state store kept when it was written)'
    : '  evidence: unanchored (written elsewhere, or before erpsync kept hashes: only the chain between its lines is checked)';
}

function formatValue(value: unknown): string {
  return value === undefined ? '(unset)' : JSON.stringify(value);
}

/** `path: before → after`, a secret without its values. */
export function describeFieldChange(field: FieldChange): string {
  return field.sensitive ? `${field.path}: (sensitive) changed` : `${field.path}: ${formatValue(field.before)} → ${formatValue(field.after)}`;
}

/** One run: its header, then each change with its outcome and fields. */
export function renderRunText(run: JournalRun): string[] {
  const { header } = run;
  const lines = [
    `Run ${header.run} — ${run.status}${run.end ? '' : ' (no closing line: the run was killed or crashed midway)'}`,
    `  started ${header.startedAt}${run.end ? `, ended ${run.end.at}` : ''}`,
    `  target ${header.target.name} (${header.target.id}), account ${header.account.nome}${header.account.cnpj ? ` (CNPJ ${header.account.cnpj})` : ''}`,
    ...(header.fleet === undefined ? [] : [`  one store of the fleet apply ${header.fleet}`]),
    `  manifests ${describeGit(run)}, erpsync ${header.erpsyncVersion}, by ${describeActor(run)}${run.runner === undefined ? '' : ` on ${run.runner}`}`,
    describeTrust(run),
    ...run.notes.map((note) => `  note: ${note}`),
    '',
  ];
  for (const change of run.changes) {
    lines.push(`${change.outcome.padEnd(8)} ${change.action} ${change.kind} "${change.key}"${change.id !== undefined ? ` (id ${change.id})` : ''}${change.detail ? ` — ${change.detail}` : ''}${change.resolvedAt ? ' [settled by reading the account]' : ''}`);
    for (const field of change.fields) lines.push(`    ${describeFieldChange(field)}`);
  }
  for (const id of run.unfinished) lines.push(`unknown  ${id} — started, never reported as ended`);
  if (run.changes.length === 0 && run.unfinished.length === 0) lines.push('(no change reached the account)');
  return lines.map((line) => printable(line));
}
