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

/**
 * How the account after a revert differs from the account before the run, but for what the revert
 * plan itself says it cannot undo: a record of a kind the API cannot delete, retired instead, a
 * record whose removal it shows blocked, and the fields of a change it shows blocked.
 */
export function differencesAfterRevert(before: ExportedAccount, after: ExportedAccount, revert: Plan): string[] {
  const retired = new Set(revert.changes.filter((c) => c.action === 'retire' && registry.unit(c.kind)?.canDelete === false).map((c) => `${c.kind} "${c.key}"`));
  const blocked = new Map(revert.changes.filter((c) => c.action === 'blocked').map((c) => [`${c.kind} "${c.key}"`, c.fields.map((f) => f.path)]));
  const found: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key);
    const is = after.get(key);
    // A record the revert could not remove: retired (the API cannot delete its kind), or its removal blocked.
    if (!was && is && (retired.has(key) || blocked.has(key))) continue;
    if (!was || !is) {
      found.push(`${was ? 'missing' : 'extra'}: ${key}`);
      continue;
    }
    const kept = blocked.get(key) ?? [];
    for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (!kept.includes(field) && !deepEqual(was[field], is[field])) found.push(`${key} ${field}: ${JSON.stringify(is[field])}, was ${JSON.stringify(was[field])}`);
    }
  }
  return found;
}
