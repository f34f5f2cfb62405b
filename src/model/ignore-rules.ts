// policy.ignore: which rule covers a record or one of its fields, and which rules have expired
// (`until`). One answer for planning and drift (drift counts what each rule kept out). Pure: the
// day a rule is checked on is given by the caller (the CLI), never read from a clock here.
import type { IgnoreRule } from './desired.js';
import type { UnitKind } from './kinds.js';

/** What an ignore rule is checked against: a unit by kind and key, and where it is declared when nested. */
export interface IgnoreTarget {
  kind: UnitKind;
  key: string;
  /** For units listed inside another record (services): rules on that record's list field cover them. */
  container?: { kind: UnitKind; key: string; field: string };
}

/** Where a unit kind is declared when it is nested in another kind's records. */
export interface NestingOf {
  kind: UnitKind;
  nestedIn?: UnitKind;
  nestedField?: string;
}

/** The ignore target of a unit of `unit`'s kind; `parent` is the identity of the record it is nested in. */
export function ignoreTargetOf(unit: NestingOf, key: string, parent: string | undefined): IgnoreTarget {
  const container = unit.nestedIn && unit.nestedField && parent !== undefined ? { kind: unit.nestedIn, key: parent, field: unit.nestedField } : undefined;
  return { kind: unit.kind, key, ...(container ? { container } : {}) };
}

/** Whether a rule's field (dot path, `*` for any part) names `path` or a field above it; no path asks about the whole record. */
function ruleCovers(field: string | undefined, path: string | undefined): boolean {
  if (path === undefined || field === undefined) return path === undefined && field === undefined;
  const pattern = field
    .split('.')
    .map((segment) => (segment === '*' ? '.+?' : segment.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')))
    .join('\\.');
  return new RegExp(`^${pattern}(\\..+)?$`).test(path);
}

/**
 * The policy.ignore rule that covers a record (no `path`) or one of its fields. A nested unit is
 * also covered by a rule on its container: the whole record, its list field (`servicos`), or a
 * field of every item (`servicos.*.freteItem`); a position (`servicos.0`) names no unit.
 */
export function findIgnoreRule(rules: readonly IgnoreRule[], target: IgnoreTarget, path?: string): IgnoreRule | undefined {
  return rules.find((rule) => {
    if (rule.kind === target.kind && (rule.key === undefined || rule.key === target.key)) return ruleCovers(rule.field, path);
    const container = target.container;
    if (!container || rule.kind !== container.kind || (rule.key !== undefined && rule.key !== container.key)) return false;
    if (rule.field === undefined) return path === undefined;
    const [head, item, ...inner] = rule.field.split('.');
    if (head !== container.field || (item !== undefined && item !== '*')) return false;
    return ruleCovers(inner.length > 0 ? inner.join('.') : undefined, path);
  });
}

/** Whether a rule has expired on `today` (YYYY-MM-DD): it applies through its `until` day, inclusive. */
export function isExpired(rule: IgnoreRule, today: string | undefined): boolean {
  return rule.until !== undefined && today !== undefined && today > rule.until;
}

/** The rules still in force on `today`; without a day, every rule is. */
export function activeIgnoreRules(rules: readonly IgnoreRule[], today: string | undefined): IgnoreRule[] {
  return rules.filter((rule) => !isExpired(rule, today));
}

/** What a report says about a rule that expired: it no longer hides anything. */
export function describeExpiredRule(rule: IgnoreRule): string {
  const where = [rule.kind, rule.key === undefined ? undefined : `"${rule.key}"`, rule.field].filter((part) => part !== undefined).join(' ');
  return `the policy.ignore rule on ${where} (${rule.reason}) expired after ${rule.until ?? ''}: what it ignored is reported and planned again; remove the rule or move its until`;
}
