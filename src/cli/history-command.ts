// `erpsync history [RUN]`: the journal's runs, or one run's changes (text or --json), each write
// with its true outcome: an outcome the journal left unknown is settled first by reading the
// run's account (workflows/history-workflow). A damaged run is listed with what is wrong in it;
// named, it is refused (exit 3).
import { renderHistoryText, renderRunText, summarizeRun } from '../report/history-report.js';
import { findJournalRun } from '../workflows/journal-reader.js';
import { readHistory } from '../workflows/history-workflow.js';
import { loadTargetsConfig } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { printable } from '../model/printable.js';
import { ErpsyncError } from '../model/errors.js';
import { renderHelp } from './commands.js';
import { historyFlags, parseCommandFlags } from './flags.js';

export async function runHistoryCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('history', historyFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('history'));
    return 0;
  }
  if (positionals.length > 1) throw new ErpsyncError('USAGE', 'history takes at most one run id');
  const config = await loadTargetsConfig({ config: flags.config }, io);
  const { listing, notes } = await readHistory({ ...(config ? { config } : {}), ...(flags.target === undefined ? {} : { target: flags.target }), outcomeWindowMs: flags['outcome-wait'] }, io);
  for (const note of notes) writeLine(io.stderr, printable(`note: ${note}`));
  const [id] = positionals;
  if (id !== undefined) {
    const run = findJournalRun(listing, id);
    if (flags.json) io.stdout.write(`${JSON.stringify({ ...summarizeRun(run), changes: run.changes, readBack: run.readBack, unfinished: run.unfinished }, null, 2)}\n`);
    else for (const line of renderRunText(run)) writeLine(io.stdout, line);
    return 0;
  }
  if (flags.json) io.stdout.write(`${JSON.stringify({ runs: listing.runs.map(summarizeRun), damaged: listing.damaged }, null, 2)}\n`);
  else for (const line of renderHistoryText(listing)) writeLine(io.stdout, line);
  return 0;
}
