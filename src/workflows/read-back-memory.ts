// What the read-back after apply saw on earlier runs, per account, in `.erpsync/read-back.json`
// beside the run (where the sandbox state and credentials live): the fields the service did not
// keep (so one that fails again is reported as a field the service does not keep, and the planner
// stops sending it: model/unkept-fields), and the other forms it keeps values in (noted the first
// time only). A missing or unreadable file is an empty memory: it only ever saves requests and
// noise, never decides a write on its own. CI runs from a fresh clone start empty each time.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ReadBackCheck } from '../apply/check-convergence.js';
import { describeMiss, describeRestated } from '../apply/check-convergence.js';
import { deepEqual } from '../model/diff-fields.js';
import type { UnkeptField } from '../model/unkept-fields.js';
import { unkeptAfterRuns } from '../model/unkept-fields.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';

export const readBackMemoryFile = '.erpsync/read-back.json';

interface AccountMemory {
  unkept: UnkeptField[];
  /** `kind path` pairs whose other form was noted already. */
  restated: string[];
}

export interface ReadBackMemory {
  file: string;
  accountId: string;
  accounts: Record<string, AccountMemory>;
}

export async function loadReadBackMemory(cwd: string, accountId: string): Promise<ReadBackMemory> {
  const file = path.resolve(cwd, readBackMemoryFile);
  let accounts: Record<string, AccountMemory> = {};
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (isPlainRecord(parsed) && isPlainRecord(parsed.accounts)) accounts = parsed.accounts as Record<string, AccountMemory>;
  } catch {
    // No memory yet, or one that cannot be read: start empty.
  }
  return { file, accountId, accounts };
}

function accountOf(memory: ReadBackMemory): AccountMemory {
  const known = memory.accounts[memory.accountId];
  const account = { unkept: Array.isArray(known?.unkept) ? known.unkept : [], restated: Array.isArray(known?.restated) ? known.restated : [] };
  memory.accounts[memory.accountId] = account;
  return account;
}

/** The fields this account's service did not keep on earlier runs, for the planner. */
export function unkeptFields(memory: ReadBackMemory): UnkeptField[] {
  return accountOf(memory).unkept;
}

/**
 * A read-back's findings in the words of what was seen before: a field not kept on an earlier run
 * too is a field the service does not keep; another form already noted is not noted again. The
 * memory is updated (kept fields forgotten, failures counted); save it afterwards when `changed`
 * (a run that saw nothing new writes no file).
 */
export function recallReadBack(memory: ReadBackMemory, check: ReadBackCheck): { notConverged: string[]; notes: string[]; changed: boolean } {
  const account = accountOf(memory);
  const missed = new Set(check.misses.map((m) => `${m.kind}\u0000${m.key}\u0000${m.path}`));
  const notConverged = [...check.missing];
  const unkept: UnkeptField[] = account.unkept.filter((u) => !missed.has(`${u.kind}\u0000${u.key}\u0000${u.path}`) && !checkedAndKept(check, u));
  for (const miss of check.misses) {
    const before = account.unkept.find((u) => u.kind === miss.kind && u.key === miss.key && u.path === miss.path && deepEqual(u.sent, miss.sent));
    const runs = (before?.runs ?? 0) + 1;
    unkept.push({ kind: miss.kind, key: miss.key, path: miss.path, sent: miss.sent, runs });
    const line = describeMiss(miss);
    notConverged.push(runs >= unkeptAfterRuns ? `${line} — the service does not keep this field (not kept on ${runs} runs); erpsync will not send this value again` : line);
  }
  const changed = check.misses.length > 0 || unkept.length !== account.unkept.length;
  account.unkept = unkept;
  const notes: string[] = [];
  for (const field of check.restated) {
    const seen = `${field.kind} ${field.path}`;
    if (account.restated.includes(seen)) continue;
    account.restated.push(seen);
    notes.push(describeRestated(field));
  }
  return { notConverged, notes, changed: changed || notes.length > 0 };
}

/** A remembered field this read-back wrote and found kept: forgotten. */
function checkedAndKept(check: ReadBackCheck, field: UnkeptField): boolean {
  return check.restated.some((r) => r.kind === field.kind && r.key === field.key && r.path === field.path);
}

export async function saveReadBackMemory(memory: ReadBackMemory): Promise<void> {
  await mkdir(path.dirname(memory.file), { recursive: true });
  await writeFileAtomically(memory.file, `${JSON.stringify({ formatVersion: 1, accounts: memory.accounts }, null, 2)}\n`);
}
