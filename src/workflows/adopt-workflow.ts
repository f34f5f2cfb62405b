// `drift --adopt`: after drift, writes the account's values of modified fields into the manifest
// files they are declared in (drift/adopt-drift decides and edits; this file reads and writes), and
// adds unmanaged records to the target's own files (drift/adopt-unmanaged).
// A file is written only when it belongs to this target alone: a file other targets read too (a
// fleet's shared base) is refused and named with its readers, since one store's hand edit written
// there would change every store. Afterwards every target that reads a changed file is loaded
// again offline, so an edit that broke a manifest is reported at once. Files keep their mode.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { planAdoption, rewriteManifest } from '../drift/adopt-drift.js';
import type { AdoptionInput, NotAdopted } from '../drift/adopt-drift.js';
import { hasErrors } from '../model/diagnostics.js';
import type { RunIO } from '../model/run-io.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';
import { appendTo } from '../model/collections.js';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import type { FileReaders, Revalidation } from './file-readers.js';
import { insertRecords, planUnmanagedAdoption } from '../drift/adopt-unmanaged.js';
import type { KindKey } from '../model/kinds.js';

export interface AdoptedFile {
  file: string;
  subjects: string[];
}

/** A file that was not written because other targets read it too. */
export interface SharedFileRefusal {
  file: string;
  /** The other targets that read it. */
  readers: string[];
  subjects: string[];
}

export interface AdoptOutcome {
  adopted: AdoptedFile[];
  notAdopted: NotAdopted[];
  shared: SharedFileRefusal[];
  revalidated: Revalidation[];
  /** A file that could not be written (a link planted at it, no permission): the run fails with it, after the report. */
  failed?: ErpsyncError;
}

export interface AdoptContext {
  /** The target adopting (its name as the config knows it). */
  target: string;
  readers: FileReaders;
}

export async function adoptDrift(input: AdoptionInput, io: RunIO, context: AdoptContext): Promise<AdoptOutcome> {
  const { edits, notAdopted } = planAdoption(input);
  const outcome: AdoptOutcome = { adopted: [], notAdopted, shared: [], revalidated: [] };
  await writeOwnFiles(edits, rewriteManifest, io, context, outcome);
  await adoptUnmanaged(input, io, context, outcome);
  const changed = [...new Set(outcome.adopted.map((a) => path.resolve(io.cwd, a.file)))];
  outcome.revalidated = await context.readers.revalidate(changed);
  return outcome;
}

/** Whether anything adopted left a target that reads the changed files invalid. */
export function brokeATarget(outcome: AdoptOutcome): boolean {
  return outcome.revalidated.some((r) => hasErrors(r.diagnostics));
}

/**
 * Where an unmanaged record of a kind goes: the last file this target alone reads that declares the
 * kind, else the last file it alone reads (a layered target's overlay); else the last file that
 * declares the kind, which is shared and so refused with its readers.
 */
function chooseFileFor(input: AdoptionInput, io: RunIO, context: AdoptContext): (kind: KindKey) => string | undefined {
  const files = input.desired.files;
  const own = files.filter((file) => context.readers.readersOf(path.resolve(io.cwd, file)).every((name) => name === context.target));
  return (kind) => {
    const declaring = new Set((input.desired.records.get(kind) ?? []).map((r) => r.source.file));
    return own.filter((f) => declaring.has(f)).at(-1) ?? own.at(-1) ?? files.filter((f) => declaring.has(f)).at(-1) ?? files.at(-1);
  };
}

/** Unmanaged records written into the target's own files (after the field edits, on their result). */
async function adoptUnmanaged(input: AdoptionInput, io: RunIO, context: AdoptContext, outcome: AdoptOutcome): Promise<void> {
  const { inserts, notAdopted } = planUnmanagedAdoption(input, chooseFileFor(input, io, context));
  outcome.notAdopted.push(...notAdopted);
  await writeOwnFiles(inserts, insertRecords, io, context, outcome);
}

/**
 * Rewrites each file the items go into, when it belongs to this target alone (a shared file is
 * refused with its readers); files keep their mode, and a file whose text does not change is not written.
 */
async function writeOwnFiles<T extends { file: string; subject: string }>(
  items: readonly T[],
  rewrite: (text: string, items: readonly T[]) => { text: string; refused: NotAdopted[] },
  io: RunIO,
  context: AdoptContext,
  outcome: AdoptOutcome,
): Promise<void> {
  const byFile = new Map<string, T[]>();
  for (const item of items) appendTo(byFile, path.resolve(io.cwd, item.file), item);
  for (const [absolute, fileItems] of byFile) {
    const others = context.readers.readersOf(absolute).filter((name) => name !== context.target);
    const shown = fileItems[0]?.file ?? absolute;
    if (others.length > 0) {
      outcome.shared.push({ file: shown, readers: others, subjects: fileItems.map((i) => i.subject) });
      continue;
    }
    const text = await readFile(absolute, 'utf8');
    const rewritten = rewrite(text, fileItems);
    outcome.notAdopted.push(...rewritten.refused);
    const taken = fileItems.filter((i) => !rewritten.refused.some((r) => r.subject === i.subject));
    if (taken.length === 0) continue;
    try {
      if (rewritten.text !== text) await writeFileAtomically(absolute, rewritten.text, { mode: (await stat(absolute)).mode & 0o777 });
    } catch (error) {
      outcome.failed ??= isErpsyncError(error) ? error : new ErpsyncError('FILE_UNWRITABLE', `cannot write ${shown}`, { cause: error });
      continue;
    }
    outcome.adopted.push({ file: shown, subjects: taken.map((i) => i.subject) });
  }
}
