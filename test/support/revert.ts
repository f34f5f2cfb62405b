// An account compared by meaning before a run and after its revert: exported, loaded back as
// manifests, every unit (a logistics' services apart from it) by kind and identity, field by field.
import { expect } from 'vitest';
import { deriveDesiredUnits } from '../../src/kinds/desired-units.js';
import { registry } from '../../src/kinds/registry.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { deepEqual } from '../../src/model/diff-fields.js';
import type { Plan } from '../../src/model/plan.js';
import { runCli } from './run-cli.js';

export interface CliPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export type ExportedAccount = Map<string, Record<string, unknown>>;

/** `erpsync export --out NAME` (with `targetArgs`), loaded back: each unit's fields by `KIND "IDENTITY"`. */
export async function exportedAccount(place: CliPlace, name: string, targetArgs: readonly string[] = []): Promise<ExportedAccount> {
  const exported = await runCli(['export', ...targetArgs, '--out', name], place);
  expect(exported.code, exported.stderr).toBe(0);
  const loaded = await loadManifests([name], { ...place, registry });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const units: ExportedAccount = new Map();
  for (const [kind, list] of deriveDesiredUnits(loaded.desired ?? { records: new Map() }, registry.units)) {
    const nested = registry.units.filter((u) => u.nestedIn === kind).map((u) => u.nestedField ?? '');
    for (const unit of list) units.set(`${kind} "${unit.identity}"`, Object.fromEntries(Object.entries(unit.fields).filter(([key]) => !nested.includes(key))));
  }
  return units;
}

/** What a revert plan says it leaves as the run left it (`not undone: KIND "KEY" (fields): why`): the fields, or the whole record. */
export function notUndone(revert: Plan): Map<string, string[]> {
  const left = new Map<string, string[]>();
  for (const warning of revert.warnings) {
    const found = /^not undone: (\S+) "(.+?)"(?: \((.+?)\))?: /.exec(warning);
    if (found) left.set(`${found[1]} "${found[2]}"`, found[3]?.split(', ') ?? []);
  }
  return left;
}

/**
 * How the account after a revert differs from the account before the run, but for what the revert
 * plan itself says it cannot undo: a record of a kind the API cannot delete, retired instead, and
 * what it leaves as the run left it (a record it cannot remove, fields it cannot set back).
 */
export function differencesAfterRevert(before: ExportedAccount, after: ExportedAccount, revert: Plan): string[] {
  const retired = new Set(revert.changes.filter((c) => c.action === 'retire' && registry.unit(c.kind)?.canDelete === false).map((c) => `${c.kind} "${c.key}"`));
  const blocked = notUndone(revert);
  const found: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key);
    const is = after.get(key);
    // A record the revert could not remove: retired (the API cannot delete its kind), or left.
    if (!was && is && (retired.has(key) || blocked.has(key))) continue;
    if (!was || !is) {
      found.push(`${was ? 'missing' : 'extra'}: ${key}`);
      continue;
    }
    const kept = (blocked.get(key) ?? []).map((path) => path.split('.')[0] ?? path);
    for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (!kept.includes(field) && !deepEqual(was[field], is[field])) found.push(`${key} ${field}: ${JSON.stringify(is[field])}, was ${JSON.stringify(was[field])}`);
    }
  }
  return found;
}
