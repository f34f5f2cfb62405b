// Targeted runs (--only / --exclude): which records a run is about. One answer for plan (which
// changes it keeps) and drift (which findings it reports). A pattern is `KIND[/IDENTITY]`, both
// parts globs (`*` any run of characters, `?` one), matched against a record's unit kind and its
// identity as plans show it (`Revenda > Nacionais`). A unit nested in another record (a logistics
// service) is selected with its container too. Pure.
import { ErpsyncError } from './errors.js';
import { suggestClose } from './suggest.js';
import { kindKeys, nestedUnitKinds } from './kinds.js';
import type { UnitKind } from './kinds.js';

export interface Selection {
  only: readonly string[];
  exclude: readonly string[];
}

/** What a pattern is matched against: a record by kind and identity, and the record it is nested in. */
export interface SelectionTarget {
  kind: UnitKind;
  key: string;
  container?: { kind: UnitKind; key: string };
}

interface Pattern {
  kind: RegExp;
  key?: RegExp;
}

function globToRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'su');
}

function compile(pattern: string): Pattern {
  const slash = pattern.indexOf('/');
  const kind = slash === -1 ? pattern : pattern.slice(0, slash);
  return { kind: globToRegExp(kind), ...(slash === -1 ? {} : { key: globToRegExp(pattern.slice(slash + 1)) }) };
}

/**
 * Checks the patterns a user gave (each must name at least one kind) and returns the selection,
 * or undefined when no pattern was given (the whole plan).
 */
export function parseSelection(only: readonly string[], exclude: readonly string[]): Selection | undefined {
  if (only.length === 0 && exclude.length === 0) return undefined;
  const kinds: readonly string[] = [...kindKeys, ...nestedUnitKinds];
  for (const [flag, patterns] of [['--only', only], ['--exclude', exclude]] as const) {
    for (const pattern of patterns) {
      const slash = pattern.indexOf('/');
      if (pattern === '' || slash === 0 || slash === pattern.length - 1) throw new ErpsyncError('USAGE', `${flag} takes KIND or KIND/IDENTITY (globs allowed), not \`${pattern}\``);
      const kind = compile(pattern).kind;
      if (!kinds.some((k) => kind.test(k))) throw new ErpsyncError('USAGE', `${flag} ${pattern}: no kind is called that`, { details: [`kinds: ${kinds.join(', ')}`] });
    }
  }
  return { only: [...only], exclude: [...exclude] };
}

function matchesOne(pattern: Pattern, target: SelectionTarget): boolean {
  const hit = (kind: UnitKind, key: string) => pattern.kind.test(kind) && (pattern.key === undefined || pattern.key.test(key));
  return hit(target.kind, target.key) || (target.container !== undefined && hit(target.container.kind, target.container.key));
}

/** Whether the selection takes in a record: named by some --only (or no --only given), and by no --exclude. */
export function selectorOf(selection: Selection): (target: SelectionTarget) => boolean {
  const only = selection.only.map(compile);
  const exclude = selection.exclude.map(compile);
  return (target) => (only.length === 0 || only.some((p) => matchesOne(p, target))) && !exclude.some((p) => matchesOne(p, target));
}

/** `--only a --exclude b`: how a partial run names its selection on its first line. */
export function describeSelection(selection: Selection): string {
  return [...selection.only.map((p) => `--only ${p}`), ...selection.exclude.map((p) => `--exclude ${p}`)].join(' ');
}

/**
 * The patterns that take in no record at all — none the manifests declare, none this run read —
 * each as a line with the closest identities of its kind: a typo'd `--only` would otherwise give
 * a partial plan of nothing, which reads like "nothing to do". An `--exclude` that names nothing
 * is as likely a typo, and excludes nothing it was meant to.
 */
export function unmatchedPatterns(selection: Selection, targets: readonly SelectionTarget[]): string[] {
  const lines: string[] = [];
  for (const [flag, patterns] of [['--only', selection.only], ['--exclude', selection.exclude]] as const) {
    for (const pattern of patterns) {
      const compiled = compile(pattern);
      if (targets.some((t) => matchesOne(compiled, t))) continue;
      const ofKind = [...new Set(targets.filter((t) => compiled.kind.test(t.kind)).map((t) => `${t.kind}/${t.key}`))];
      const slash = pattern.indexOf('/');
      const closest = slash === -1 ? [] : suggestClose(pattern, ofKind);
      const kindPart = slash === -1 ? pattern : pattern.slice(0, slash);
      lines.push(
        closest.length > 0
          ? `${flag} ${pattern} matches no record; the closest: ${closest.join(', ')}`
          : ofKind.length > 0
            ? `${flag} ${pattern} matches no record of ${kindPart} (${ofKind.length} declared or read, none close to it)`
            : `${flag} ${pattern} matches no record: the manifests declare no ${kindPart} record, and the account holds none this run read`,
      );
    }
  }
  return lines;
}
