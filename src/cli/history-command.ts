// `erpsync history [RUN]`: the journal's runs, or one run's changes (text or --json). Reads the
// journal folders of the config's targets; changes nothing and reaches no account.
import { renderHistoryText, renderRunText, summarizeRun } from '../report/history-report.js';
import { stateStoreFor } from '../workflows/run-state.js';
import { backendChoiceOf } from '../api/index.js';
import { findJournalRun, journalLocationsOf } from '../workflows/journal-reader.js';
import { loadTargetsConfig } from '../workflows/open-target.js';
import type { RunIO } from '../workflows/run-io.js';
import { writeLine } from '../workflows/run-io.js';
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
  const state = await stateStoreFor(backendChoiceOf(config, io.env), io);
  const runs = await state.journal.list(journalLocationsOf(config, io.cwd, flags.target), flags.target === undefined ? {} : { target: flags.target });
  const [id] = positionals;
  if (id !== undefined) {
    const run = findJournalRun(runs, id);
    if (flags.json) io.stdout.write(`${JSON.stringify({ ...summarizeRun(run), changes: run.changes, readBack: run.readBack, unfinished: run.unfinished }, null, 2)}\n`);
    else for (const line of renderRunText(run)) writeLine(io.stdout, line);
    return 0;
  }
  if (flags.json) io.stdout.write(`${JSON.stringify({ runs: runs.map(summarizeRun) }, null, 2)}\n`);
  else for (const line of renderHistoryText(runs)) writeLine(io.stdout, line);
  return 0;
}
