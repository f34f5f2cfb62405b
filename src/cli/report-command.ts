// `erpsync report --html FILE`: the fleet dashboard, one static HTML page from the journal and the
// drift results kept over time (workflows/dashboard-workflow). Reaches no account.
import { ErpsyncError } from '../model/errors.js';
import { writeDashboard } from '../workflows/dashboard-workflow.js';
import { loadTargetsConfig } from '../target/open-target.js';
import { readToday } from '../workflows/read-and-plan.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { printable } from '../model/printable.js';
import { renderHelp } from './commands.js';
import { parseCommandFlags, reportFlags } from './flags.js';

export async function runReportCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('report', reportFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('report'));
    return 0;
  }
  if (flags.html === undefined) throw new ErpsyncError('USAGE', 'report needs --html FILE: where to write the dashboard');
  if (positionals.length > 0) throw new ErpsyncError('USAGE', 'report takes no paths: give drift results with --drift PATH');
  const config = await loadTargetsConfig({ config: flags.config }, io);
  const written = await writeDashboard(
    { out: flags.html, driftPaths: flags.drift, days: flags.days, today: readToday(io.env), ...(flags.target === undefined ? {} : { target: flags.target }), ...(config ? { config } : {}) },
    io,
  );
  for (const file of written.skipped) writeLine(io.stderr, `warning: ${file} is not the JSON of \`erpsync drift --all-targets --json\`: left out`);
  for (const damage of written.damaged) writeLine(io.stderr, printable(`warning: a damaged journal run is left out: ${damage}`));
  writeLine(io.stdout, `Wrote the dashboard of ${written.stores} store(s) to ${flags.html} (${Math.ceil(written.bytes / 1024)} KB).`);
  return 0;
}
