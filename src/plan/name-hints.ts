// Warnings about names a plan cannot judge by identity alone. Identities compare exactly (after
// NFC), so two records whose names differ slightly are two records to the planner — and that may
// be a mistake it can point at:
//  - a create beside a live record whose name differs only in case, accents, look-alike letters
//    or invisible characters: the account would hold two records that look the same (a twin);
//  - a create and a removal in one kind whose records differ only a little in the name and not at
//    all in the other fields the manifest sets: most likely a rename, which `previousNames` makes
//    an update that keeps the record (its id, and what refers to it) instead of delete + create.
// Pure; it decides nothing about the plan, only warns, at the manifest record that would be created.
import type { KindAdapter } from '../kinds/kind.js';
import type { DesiredRecord, DesiredState } from '../model/desired.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import { compareDiagnostics } from '../model/diagnostics.js';
import { diffRecord } from '../kinds/compare-records.js';
import type { LiveRecord, LiveState } from '../model/live.js';
import { foldLookalikeName } from '../model/name-hazards.js';
import { lastSegment, parentPathOf } from '../model/names.js';
import type { Change, Plan } from '../model/plan.js';
import { appendTo } from '../model/collections.js';
import { suggestClose } from '../model/suggest.js';

export function findNameHints(plan: Pick<Plan, 'changes'>, desired: Pick<DesiredState, 'records'>, live: Pick<LiveState, 'records'>, adapters: readonly KindAdapter[]): Diagnostic[] {
  const hints: Diagnostic[] = [];
  for (const adapter of adapters) {
    const definition = adapter.definition;
    const nameField = definition?.nameField;
    // Names composed of references (a transition's ends) are renamed through what they name.
    if (!definition || nameField === undefined || definition.composeName) continue;
    const creates = plan.changes.filter((c) => c.kind === adapter.kind && c.action === 'create' && c.reason === 'missing');
    if (creates.length === 0) continue;
    const records = live.records.get(adapter.kind) ?? [];
    const removed = new Set(plan.changes.filter((c) => c.kind === adapter.kind && (c.action === 'delete' || c.action === 'retire') && (c.reason === 'prune' || c.reason === 'tombstone')).map((c) => c.liveId));
    const where = positionsOf(desired.records.get(definition.key) ?? [], nameField);
    const paired = new Set<number>();
    for (const create of creates) {
      const position = where(create.key);
      const rename = records.find((r) => removed.has(r.id) && !paired.has(r.id) && looksRenamed(create, r, adapter, nameField));
      if (rename) {
        paired.add(rename.id);
        hints.push(renameHint(create, rename, position));
        continue;
      }
      const twin = records.find((r) => !removed.has(r.id) && r.identity !== create.key && foldLookalikeName(r.identity) === foldLookalikeName(create.key));
      if (twin) hints.push(twinHint(create, twin, adapter.kind, position));
    }
  }
  return hints.sort(compareDiagnostics);
}

/** The same parent, a name close to the new one, and every other field the manifest sets already as the record holds it. */
function looksRenamed(create: Change, record: LiveRecord, adapter: KindAdapter, nameField: string): boolean {
  if (parentPathOf(create.key) !== parentPathOf(record.identity)) return false;
  const name = lastSegment(create.key);
  const close = foldLookalikeName(name) === foldLookalikeName(record.name) || suggestClose(name, [record.name]).length > 0;
  if (!close) return false;
  const { [nameField]: _name, ...others } = create.desired ?? {};
  return diffRecord(adapter, others, record.fields).length === 0;
}

function renameHint(create: Change, record: LiveRecord, position: SourcePosition | undefined): Diagnostic {
  return {
    severity: 'warning',
    code: 'looks-like-rename',
    message: `\`${create.key}\` is created while \`${record.identity}\` (id ${record.id}) is removed, and the two differ only a little in the name`,
    hint: `if this is a rename, add \`previousNames: [${JSON.stringify(record.name)}]\`: the record is then updated and keeps its id and what refers to it`,
    ...(position ? { position } : {}),
  };
}

function twinHint(create: Change, record: LiveRecord, kind: string, position: SourcePosition | undefined): Diagnostic {
  return {
    severity: 'warning',
    code: 'near-duplicate-in-account',
    message: `\`${create.key}\` is created beside the ${kind} record \`${record.identity}\` (id ${record.id}), which differs from it only in case, accents, look-alike letters or invisible characters`,
    hint: `the account would hold two records that look the same; to manage that one, write its name as the account has it, or rename it with \`previousNames: [${JSON.stringify(record.name)}]\``,
    ...(position ? { position } : {}),
  };
}

/**
 * Where the manifest declares a record the plan creates: by identity, else by name when one
 * record has it (a parent named by a bare name gets its full path from the account when planned).
 */
function positionsOf(records: readonly DesiredRecord[], nameField: string): (identity: string) => SourcePosition | undefined {
  const byIdentity = new Map(records.map((r) => [r.identity, r]));
  const byName = new Map<string, DesiredRecord[]>();
  for (const r of records) appendTo(byName, r.name, r);
  return (identity) => {
    const named = byName.get(lastSegment(identity)) ?? [];
    const record = byIdentity.get(identity) ?? (named.length === 1 ? named[0] : undefined);
    return record?.locate([nameField]);
  };
}
