// The targeted-run step of buildPlan (--only / --exclude): keeps the changes the selection names,
// then every change they depend on (a parent's create, a child's removal …), transitively, even
// when --exclude named it — a selected change cannot run without them — and records which were
// added that way. It decides nothing else: preconditions and dependencies were computed over the
// whole plan and stay as they are; waves keep their order.
import type { KindAdapter } from '../kinds/kind.js';
import type { Change, PlanSelection } from '../model/plan.js';
import type { KindMatching } from '../model/live.js';
import type { Selection, SelectionTarget } from '../model/selection.js';
import { selectorOf } from '../model/selection.js';

export function selectChanges(changes: readonly Change[], selection: Selection, targetOf: (change: Change) => SelectionTarget): { changes: Change[]; selection: PlanSelection } {
  const selected = selectorOf(selection);
  const byId = new Map(changes.map((c) => [c.id, c]));
  const kept = new Set<string>();
  const added: string[] = [];
  const keep = (change: Change, asDependency: boolean) => {
    if (kept.has(change.id)) return;
    kept.add(change.id);
    if (asDependency) added.push(change.id);
    for (const id of change.dependsOn) {
      const dependency = byId.get(id);
      if (dependency) keep(dependency, !selected(targetOf(dependency)));
    }
  };
  for (const change of changes) if (selected(targetOf(change))) keep(change, false);
  // Waves left empty by the selection close up, so a partial plan's waves read 1, 2, … as any plan's.
  const remaining = changes.filter((c) => kept.has(c.id));
  const waves = [...new Set(remaining.map((c) => c.wave))].sort((a, b) => a - b);
  const waveOf = new Map(waves.map((wave, i) => [wave, i + 1]));
  return {
    changes: remaining.map((c) => ({ ...c, wave: waveOf.get(c.wave) ?? c.wave })),
    selection: { only: [...selection.only], exclude: [...selection.exclude], addedDependencies: added.sort() },
  };
}

/**
 * Every record a selection could name in a run: the desired units and the live records of each
 * planned kind, as --only/--exclude see them (kind, identity, and the record a nested unit sits in).
 */
export function selectionTargetsOf(matching: readonly KindMatching[], adapters: readonly KindAdapter[]): SelectionTarget[] {
  const containerKind = new Map(adapters.flatMap((a) => (a.nestedIn ? [[a.kind, a.nestedIn] as const] : [])));
  return matching.flatMap((m) => {
    const container = containerKind.get(m.kind);
    const target = (key: string, parent: string | undefined): SelectionTarget => ({ kind: m.kind, key, ...(container !== undefined && parent !== undefined ? { container: { kind: container, key: parent } } : {}) });
    return [...m.units.map((u) => target(u.identity, u.parent)), ...m.units.flatMap((u) => (u.live ? [target(u.live.identity, u.live.parent)] : [])), ...m.unmatched.map((r) => target(r.identity, r.parent))];
  });
}
