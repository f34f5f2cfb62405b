// The local backend's drift results: each fleet drift's snapshot one JSON file in
// `.erpsync/drift-results/`, named by its time (and a random suffix, so two snapshots of one
// millisecond both stay), written whole and atomically. Reading them back trusts nothing: only
// regular files are opened (no links, which the open itself refuses), each of a bounded size, and
// each checked for the snapshot's shape; a file that fails is skipped, not reported. It decides
// nothing and prints nothing.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ErpsyncError } from '../../model/errors.js';
import { makeDirectory, writeFileAtomically } from '../../model/write-file-atomically.js';
import { driftSnapshotOf } from '../read-checks.js';
import { readRegularFile } from './safe-read.js';
import type { DriftResultStore, DriftSnapshot } from '../state-store.js';

const driftResultsDir = '.erpsync/drift-results';
/** A snapshot of a 1,000-store fleet is a few hundred kilobytes; anything near this is not one erpsync wrote. */
const maxSnapshotBytes = 32 * 1024 * 1024;
/** `20260105T120000123Z-a1b2c3.json`: the snapshot's time, compact and sortable, then a random suffix. */
const snapshotName = /^(\d{8}T\d{9}Z)-[0-9a-f]{6}\.json$/;

export function localDriftResults(context: { cwd: string }): DriftResultStore {
  const dir = path.resolve(context.cwd, driftResultsDir);
  return {
    async record(snapshot) {
      const at = instantOf(snapshot.at, 'the snapshot time');
      await makeDirectory(dir, { within: context.cwd });
      const file = path.join(dir, `${compactTime(at)}-${randomBytes(3).toString('hex')}.json`);
      await writeFileAtomically(file, `${JSON.stringify({ formatVersion: 1, at: at.toISOString(), rows: snapshot.rows })}\n`, { within: context.cwd });
    },
    async list(since) {
      const start = instantOf(since, 'the start of the drift results asked for');
      const from = compactTime(start);
      const names = await readdir(dir).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new ErpsyncError('FILE_UNREADABLE', `cannot read the drift results ${dir}`, { cause: error });
      });
      // The name's time spares reading the older files; the content's time is still checked.
      const wanted = names.filter((name) => (snapshotName.exec(name)?.[1] ?? '') >= from).sort();
      const snapshots: DriftSnapshot[] = [];
      for (const name of wanted) {
        const snapshot = await readSnapshot(path.join(dir, name));
        if (snapshot && snapshot.at >= start.toISOString()) snapshots.push(snapshot);
      }
      return snapshots.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    },
  };
}

/** An ISO time as a date; a time that is none is the caller's mistake. */
export function instantOf(iso: string, what: string): Date {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) throw new ErpsyncError('USAGE', `${what} is not a time: ${JSON.stringify(iso)}`);
  return at;
}

function compactTime(at: Date): string {
  return at.toISOString().replace(/[-:.]/g, '');
}

/** One snapshot file, or undefined when it is a link, not a regular file, too large, unreadable or not a snapshot. */
async function readSnapshot(file: string): Promise<DriftSnapshot | undefined> {
  const read = await readRegularFile(file, maxSnapshotBytes);
  if (!read || 'refused' in read) return undefined;
  try {
    return driftSnapshotOf(JSON.parse(read.text));
  } catch {
    return undefined;
  }
}
