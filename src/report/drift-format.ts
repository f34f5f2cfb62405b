import type { DriftField, DriftFinding, DriftReport, FindingType } from '../model/drift.js';
import type { KindAdapter } from '../kinds/kind.js';
// Wording and value formatting the drift reporters share, so text, markdown and JUnit say the
// same thing the same way. Pure.

export interface DriftRenderOptions {
  adapters: readonly KindAdapter[];
}

export const findingTitles: Record<FindingType, string> = {
  modified: 'Modified in the ERP',
  missing: 'Missing from the ERP',
  pending: 'Pending from git',
  unmanaged: 'Unmanaged',
};

export const findingExplanations: Record<FindingType, string> = {
  modified: 'the account no longer holds what the manifests declare; apply would change it back (manifests → account)',
  missing: 'declared in the manifests, not in the account; apply would create it',
  pending: 'the manifests changed and the change is not applied yet (account → manifests)',
  unmanaged: 'in the account, in a kind the manifests manage, but no manifest names it; paste the snippet to manage it',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `2 modified, 1 missing, …` for the finding types present, or undefined when there is no drift. */
export function describeFindingCounts(report: DriftReport): string | undefined {
  const parts = (['modified', 'missing', 'pending', 'unmanaged'] as const)
    .filter((type) => report.summary[type] > 0)
    .map((type) => `${report.summary[type]} ${type === 'pending' ? 'pending from git' : type}`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** `12 managed records, 8 in sync, 3 ignored by policy`. */
export function describeCoverage(report: DriftReport): string {
  const parts = [plural(report.summary.managed, 'managed record'), `${report.summary.inSync} in sync`];
  if (report.summary.ignored > 0) parts.push(`${report.summary.ignored} ignored by policy`);
  return parts.join(', ');
}

/** How pending changes were told apart from drift in the ERP: what the report can and cannot say. */
export function describePendingBasis(report: DriftReport): string {
  if (report.baseline) {
    return `Pending changes were measured against the manifests at ${report.baseline.ref}: where the account still holds what they declared, the difference comes from the manifests (pending); where it does not, it was changed in the ERP (modified).`;
  }
  return 'No --baseline was given, so only renames (previousNames) and removals (ensure: absent) are known to be pending; any other difference may be a manifest change not yet applied or a change made in the ERP, and shows as modified or missing. Pass --baseline <git revision last applied> to tell them apart.';
}

export function describeAccountOwn(report: DriftReport): string | undefined {
  if (report.includeBuiltin || report.summary.accountOwn === 0) return undefined;
  return `${plural(report.summary.accountOwn, 'record')} the account itself owns or starts with (built-in, fixa, native, untouched defaults) ${report.summary.accountOwn === 1 ? 'is' : 'are'} not listed as unmanaged; --include-builtin lists them.`;
}

/** A value as the manifests would write it: JSON, with the enum label beside a code. */
export function formatValue(finding: Pick<DriftFinding, 'kind'>, path: string, value: unknown, options: DriftRenderOptions): string {
  if (value === undefined) return '(unset)';
  const shown = JSON.stringify(value);
  if (typeof value !== 'number' && typeof value !== 'string') return shown;
  const segments = path.split('.');
  const definition = options.adapters.find((a) => a.kind === finding.kind)?.definition;
  const field = definition?.enums.find((e) => {
    const plain = e.path.filter((s) => s !== '*');
    return plain.length === segments.length && plain.every((s, i) => s === segments[i]);
  });
  const label = field ? Object.entries(field.labels).find(([, code]) => code === value)?.[0] : undefined;
  return label && label !== value ? `${shown} (${label})` : shown;
}

/**
 * The change a field went through, in the direction of the finding: manifests → account for
 * drift in the ERP, account → manifests for pending. Secrets show no values.
 */
export function fieldChangeParts(finding: DriftFinding, field: DriftField, options: DriftRenderOptions): { from: string; to: string } | undefined {
  if (field.sensitive) return undefined;
  const manifest = formatValue(finding, field.path, field.manifest, options);
  const account = formatValue(finding, field.path, field.account, options);
  return finding.type === 'pending' ? { from: account, to: manifest } : { from: manifest, to: account };
}

export function formatFieldChange(finding: DriftFinding, field: DriftField, options: DriftRenderOptions): string {
  const parts = fieldChangeParts(finding, field, options);
  return parts ? `${field.path}: ${parts.from} → ${parts.to}` : `${field.path}: (sensitive) differs`;
}

/** The id worth showing for a record: a singleton has none of its own. */
export function shownId(finding: Pick<DriftFinding, 'kind' | 'liveId'>, options: DriftRenderOptions): number | undefined {
  const singleton = options.adapters.find((a) => a.kind === finding.kind)?.definition?.shape === 'singleton';
  return singleton ? undefined : finding.liveId;
}

/** `kind "key" (id n)`. */
export function describeRecord(finding: Pick<DriftFinding, 'kind' | 'key' | 'liveId'>, options: DriftRenderOptions): string {
  const id = shownId(finding, options);
  return `${finding.kind} "${finding.key}"${id !== undefined ? ` (id ${id})` : ''}`;
}

/** Who made the account's value, in words: `changed in the ERP since erpsync run R (started …)`. */
export function describeAttribution(finding: Pick<DriftFinding, 'attribution'>): string | undefined {
  const a = finding.attribution;
  if (!a) return undefined;
  if (a.by === 'never-applied') return 'no erpsync run in the journal touched this record';
  const run = `erpsync run ${a.run ?? '?'}${a.at ? ` (${a.at})` : ''}`;
  return a.by === 'erp' ? `changed in the ERP since ${run}, the last run that touched it` : `as ${run} left it: the manifests changed since`;
}
