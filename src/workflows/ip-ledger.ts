// The IP's windows handed from one erpsync process to the next on this machine. The governor
// (api/governor) is one per process; without this, a process starts with empty windows although
// the one before it may have just spent most of them — a fleet's `plan` then its `apply` back to
// back sent 780 requests in 10 s, past the service's 600. Each process records what its windows
// hold when it closes a store, under its pid, in the lock folder (per user, 0700); a process
// counts every other entry in its own windows once, before its first request. Best effort: a
// ledger that cannot be read or written is no ledger (the service's own rules still hold, and the
// governor's margin covers what one process cannot see). It never holds anything but times.
import { lstat, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Governor, IpLedger } from '../api/index.js';
import { isPlainRecord } from '../model/paths.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { judgeLockFolder, lockDirectory } from './account-lock.js';

const fileName = 'ip-ledger.json';
/** An entry older than the longest window (the token calls' 60 s) can hold nothing that counts. */
const keepMs = 60_000;

type LedgerEntries = Record<string, IpLedger & { savedAt: number }>;

function marksOf(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((mark): mark is number => typeof mark === 'number' && Number.isFinite(mark)) : [];
}

/** The folder when it is this user's own and closed to others (the lock folder's rule), else none. */
async function safeFolder(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const dir = lockDirectory(env);
  const stats = await lstat(dir).catch(() => undefined);
  return stats && judgeLockFolder(stats, process.getuid?.()) === undefined ? dir : undefined;
}

async function readEntries(file: string): Promise<LedgerEntries> {
  const parsed = await readFile(file, 'utf8').then((text) => JSON.parse(text) as unknown).catch(() => undefined);
  if (!isPlainRecord(parsed)) return {};
  const entries: LedgerEntries = {};
  for (const [pid, entry] of Object.entries(parsed)) {
    if (!isPlainRecord(entry) || typeof entry.savedAt !== 'number') continue;
    entries[pid] = { savedAt: entry.savedAt, requests: marksOf(entry.requests), errors: marksOf(entry.errors), tokenCalls: marksOf(entry.tokenCalls) };
  }
  return entries;
}

const absorbed = new WeakSet<Governor>();

/** Counts what other erpsync processes of this user sent in the last windows, once per governor, before its first request. */
export async function absorbEarlierProcesses(governor: Governor, env: NodeJS.ProcessEnv): Promise<void> {
  if (absorbed.has(governor)) return;
  absorbed.add(governor);
  const dir = await safeFolder(env);
  if (dir === undefined) return;
  const entries = await readEntries(path.join(dir, fileName));
  for (const [pid, entry] of Object.entries(entries)) if (pid !== String(process.pid)) governor.absorb(entry);
}

let saving: Promise<void> = Promise.resolve();

/** Records what this process's windows hold, for the processes after it; one write at a time. */
export function handOnIpLedger(governor: Governor, env: NodeJS.ProcessEnv): Promise<void> {
  saving = saving.then(async () => {
    const dir = lockDirectory(env);
    await mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    if ((await safeFolder(env)) === undefined) return;
    const file = path.join(dir, fileName);
    const now = Date.now();
    const entries = Object.fromEntries(Object.entries(await readEntries(file)).filter(([, entry]) => entry.savedAt > now - keepMs));
    entries[String(process.pid)] = { ...governor.ledger(), savedAt: now };
    await writeFileAtomically(file, `${JSON.stringify(entries)}\n`, { mode: 0o600 });
  }).catch(() => undefined);
  return saving;
}
