// Settling the outcomes the journal left unknown: a write whose answer was lost, or whose run was
// killed after journaling its intent, is looked up in the account by the record's identity — as
// apply looks up a create whose answer was lost before it may send it again (apply/apply-plan) —
// and what was found is appended to its run as a resolution line (model/journal).
//
// It runs under the account's lease: a run whose apply still holds it is not over, and a lease
// taken over from a run that died is first waited out for what that run may still have in flight
// (target/account-lock). And it must run before anything else changes the account: a create
// found later might be someone else's. So the next apply settles every run it finds unsettled
// before it plans, and `plan --revert` and `history` settle the runs they show.
//
// Only a verified run is appended to (state/journal-evidence); an unanchored one is settled for
// the command that reads it and left as it is. It prints nothing: what could not be done comes
// back as notes.
import { dirname } from 'node:path';
import { readForIdentity } from '../apply/apply-plan.js';
import type { KindAdapter } from '../kinds/kind.js';
import { diffRecord } from '../kinds/compare-records.js';
import { registry } from '../kinds/registry.js';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import type { JournalChangeLine, JournalResolutionLine, JournalRun } from '../model/journal.js';
import { isUnsettled, settleChange } from '../model/journal.js';
import type { LiveRecord } from '../model/live.js';
import type { UnitKind } from '../model/kinds.js';
import { writePath } from '../model/paths.js';
import type { RunIO } from '../model/run-io.js';
import type { JournalLocation } from '../state/state-store.js';
import { lockAccount, lockKeyOf } from '../target/account-lock.js';
import type { OpenedTarget } from '../target/open-target.js';
import { journalLocationOf } from './journal-reader.js';

export interface SettleOptions {
  /** The caller holds the account's lease already (an apply); otherwise it is taken for the reads, and a held one leaves the runs as they are. */
  leased: boolean;
  /** How long a write of a run that died may still commit (see lockAccount). */
  inFlightMs: number;
  /** `refuse`: a run that died too recently is left unsettled for now rather than waited out (history only reads). Default: wait. */
  inFlight?: 'wait' | 'refuse';
  /** Where the runs were read (a run is appended to in the folder it came from). */
  locations: readonly JournalLocation[];
}

export interface Settled {
  runs: JournalRun[];
  /** What could not be settled, and why. */
  notes: string[];
}

/** Whether a run changed this very account (target and account), and left an outcome unknown. */
function unsettledHere(run: JournalRun, opened: OpenedTarget): boolean {
  return run.header.target.id === opened.target.id && run.header.account.id === opened.account.id && run.changes.some(isUnsettled);
}

/** The runs with every unknown outcome on the opened account settled that a read can settle. */
export async function settleUnknownOutcomes(runs: readonly JournalRun[], opened: OpenedTarget, io: RunIO, options: SettleOptions): Promise<Settled> {
  if (!runs.some((run) => unsettledHere(run, opened))) return { runs: [...runs], notes: [] };
  let lock;
  if (!options.leased) {
    try {
      lock = await lockAccount(opened.state.leases, io, { key: lockKeyOf(opened), timeoutMs: 0, inFlightMs: options.inFlightMs, command: 'erpsync (settling what the journal left unknown)', inFlight: options.inFlight ?? 'wait' });
    } catch (error) {
      if (isErpsyncError(error) && error.code === 'LOCKED') return { runs: [...runs], notes: [`what the journal left unknown stays so for now: ${error.message}`] };
      throw error;
    }
  }
  try {
    const notes: string[] = [];
    const records = await readKinds(runs.filter((run) => unsettledHere(run, opened)), opened);
    const settled: JournalRun[] = [];
    for (const run of runs) settled.push(unsettledHere(run, opened) ? await settleRun(run, records, opened, io, options, notes) : run);
    return { runs: settled, notes };
  } finally {
    await lock?.release();
  }
}

/** Every record of each kind an unknown outcome is of, read once, as a lookup by identity reads it. */
async function readKinds(runs: readonly JournalRun[], opened: OpenedTarget): Promise<Map<UnitKind, LiveRecord[]>> {
  const kinds = new Set(runs.flatMap((run) => run.changes.filter(isUnsettled).map((c) => c.kind)));
  const read = new Map<UnitKind, LiveRecord[]>();
  for (const kind of kinds) {
    const adapter = registry.unit(kind);
    if (adapter) read.set(kind, await readForIdentity(adapter, { client: opened.client, adapters: registry.units, live: { records: new Map(), reads: 0 } }));
  }
  return read;
}

async function settleRun(run: JournalRun, records: ReadonlyMap<UnitKind, LiveRecord[]>, opened: OpenedTarget, io: RunIO, options: SettleOptions, notes: string[]): Promise<JournalRun> {
  const at = new Date().toISOString();
  const resolutions = run.changes.filter(isUnsettled).flatMap((change) => resolutionOf(change, records.get(change.kind) ?? [], at) ?? []);
  if (resolutions.length === 0) return run;
  const changes = run.changes.map((change) => {
    const resolution = resolutions.find((r) => r.change === change.change);
    return resolution ? settleChange(change, resolution) : change;
  });
  if (run.trust !== 'verified') {
    notes.push(`run ${run.header.run} is unanchored here (written elsewhere): its unknown outcomes are settled for this command only, not appended to it`);
    return { ...run, changes };
  }
  const location = options.locations.find((l) => l.dir === dirname(run.file)) ?? journalLocationOf(opened.target, io.cwd);
  try {
    const chain = await opened.state.journal.extend(location, run, resolutions.map((line) => ({ line, text: JSON.stringify(line) })));
    return { ...run, changes, chain };
  } catch (error) {
    if (!(error instanceof ErpsyncError)) throw error;
    notes.push(`run ${run.header.run}: its unknown outcomes are settled for this command only: ${error.message}`);
    return { ...run, changes };
  }
}

/**
 * What the account says of a change whose outcome was unknown: a create is there by its identity
 * or not; a deletion's record is gone or not; any other change's fields hold what it wrote or
 * what was there before. Undefined when the account tells neither (changed since by someone else).
 */
function resolutionOf(change: JournalChangeLine, records: readonly LiveRecord[], at: string): JournalResolutionLine | undefined {
  const settled = (outcome: JournalResolutionLine['outcome'], detail: string, id?: number): JournalResolutionLine => ({ type: 'resolution', at, change: change.change, outcome, ...(id === undefined ? {} : { id }), detail: `${detail} (read at ${at})` });
  if (change.action === 'create') {
    const found = records.find((r) => r.identity === change.key);
    return found ? settled('applied', `its answer was lost; the account holds it (id ${found.id})`, found.id) : settled('not-applied', 'its answer was lost; the account does not hold it: it never landed');
  }
  const record = records.find((r) => (change.liveId !== undefined ? r.id === change.liveId : r.identity === change.key));
  if (change.action === 'delete') return record ? settled('not-applied', 'its answer was lost; the account still holds the record') : settled('applied', 'its answer was lost; the record is no longer in the account');
  if (!record) return undefined;
  const adapter = registry.unit(change.kind) as KindAdapter;
  const fields = change.fields.filter((f) => !f.sensitive);
  if (fields.length === 0) return undefined;
  // Only the fields the change wrote count: the record may differ elsewhere.
  const changed = (path: string) => fields.some((f) => path === f.path || path.startsWith(`${f.path}.`) || f.path.startsWith(`${path}.`));
  const holds = (side: 'before' | 'after') => {
    const expected = fields.reduce<Record<string, unknown>>((fieldsSoFar, f) => writePath(fieldsSoFar, f.path.split('.'), f[side]), {});
    return !diffRecord(adapter, expected, record.fields).some((d) => changed(d.path));
  };
  if (holds('after')) return settled('applied', 'its answer was lost; the account holds what it wrote');
  if (holds('before')) return settled('not-applied', 'its answer was lost; the account holds what was there before it');
  return undefined;
}
