// Which unit kinds a run touches, and the desired units of each: shared by reading and planning
// so both agree. A kind no manifest mentions is left untouched unless the policy prunes it.
import type { DesiredUnit, KindAdapter } from '../kinds/adapter.js';
import type { DesiredRecord, DesiredState } from '../manifest/model.js';
import type { UnitKind } from './model.js';

export function toDesiredUnit(record: DesiredRecord): DesiredUnit {
  return {
    kind: record.kind,
    identity: record.identity,
    name: record.name,
    fields: record.fields,
    tool: record.tool,
    secretVariables: record.secretVariables,
    locate: (path) => record.locate(path),
  };
}

/** Unit kinds in adapter (dependency) order: declared or pruned kinds, and the units nested in them. */
export function selectUnitKinds(desired: DesiredState, adapters: readonly KindAdapter[]): UnitKind[] {
  const selected: UnitKind[] = [];
  for (const adapter of adapters) {
    const key = adapter.definition?.key;
    if (key ? desired.declaredKinds.has(key) || desired.policy.prune.includes(key) : adapter.nestedIn !== undefined && selected.includes(adapter.nestedIn)) {
      selected.push(adapter.kind);
    }
  }
  return selected;
}

/** Whether every live record of the unit kind is needed: the kind (or the one it nests in) is pruned. */
export function isPruned(adapter: KindAdapter, desired: DesiredState): boolean {
  const key = adapter.definition?.key ?? adapter.nestedIn;
  return desired.policy.prune.some((k) => k === key);
}

/** Desired units of every selected kind, nested ones derived from their parents. */
export function desiredUnitsByKind(desired: DesiredState, adapters: readonly KindAdapter[]): Map<UnitKind, DesiredUnit[]> {
  const units = new Map<UnitKind, DesiredUnit[]>();
  for (const adapter of adapters) {
    if (adapter.definition) {
      units.set(adapter.kind, (desired.records.get(adapter.definition.key) ?? []).map(toDesiredUnit));
    } else if (adapter.nestedIn) {
      const parents = units.get(adapter.nestedIn) ?? [];
      units.set(adapter.kind, parents.filter((p) => p.tool.ensure === 'present').flatMap((p) => adapter.deriveDesired?.(p) ?? []));
    }
  }
  return units;
}
