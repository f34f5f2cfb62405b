// `drift --adopt`: after drift, writes the account's values of modified fields into the manifest
// files they are declared in (drift/adopt-drift decides and edits; this file reads and writes),
// then says what it took in and what it left, and why. The files keep their mode.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { planAdoption, rewriteManifest } from '../drift/adopt-drift.js';
import type { AdoptionInput, FieldEdit, NotAdopted } from '../drift/adopt-drift.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';
import { appendTo } from '../model/collections.js';
import { writeFileAtomically } from '../model/write-file-atomically.js';

export interface AdoptOutcome {
  adopted: number;
  notAdopted: NotAdopted[];
}

export async function adoptDrift(input: AdoptionInput, io: CliIO, out: CliIO['stdout']): Promise<AdoptOutcome> {
  const { edits, notAdopted } = planAdoption(input);
  const byFile = new Map<string, FieldEdit[]>();
  for (const edit of edits) appendTo(byFile, edit.file, edit);
  let adopted = 0;
  for (const [file, fileEdits] of byFile) {
    const absolute = path.resolve(io.cwd, file);
    const text = await readFile(absolute, 'utf8');
    const rewritten = rewriteManifest(text, fileEdits);
    notAdopted.push(...rewritten.refused);
    const taken = fileEdits.filter((e) => !rewritten.refused.some((r) => r.subject === e.subject));
    if (taken.length === 0) continue;
    if (rewritten.text !== text) await writeFileAtomically(absolute, rewritten.text, { mode: (await stat(absolute)).mode & 0o777 });
    adopted += taken.length;
    writeLine(out, `Adopted into ${file}: ${taken.map((e) => e.subject).join('; ')}`);
  }
  if (edits.length === 0 && notAdopted.length === 0) writeLine(out, 'Nothing to adopt: no field was modified in the ERP.');
  for (const item of notAdopted) writeLine(out, `Not adopted: ${item.subject}: ${item.why}`);
  return { adopted, notAdopted };
}
