// `erpsync backend migrate | status | import`: parses its arguments, runs the backend workflow and
// renders what it returns (text, or --json). The backend is the run's choice (target/resolve-target).
import { backendChoiceOf } from '../target/resolve-target.js';
import { ErpsyncError } from '../model/errors.js';
import { printable } from '../model/printable.js';
import { backendStatus, importIntoBackend, migrateBackend, schemaAdvice } from '../workflows/backend-workflow.js';
import type { StatusOutcome } from '../workflows/backend-workflow.js';
import { loadTargetsConfig } from '../target/open-target.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { backendFlags, parseCommandFlags } from './flags.js';

const actions = ['migrate', 'status', 'import'] as const;

export async function runBackendCommand(args: string[], io: RunIO): Promise<number> {
  const { flags, positionals } = parseCommandFlags('backend', backendFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('backend'));
    return 0;
  }
  const [action, ...extra] = positionals;
  if (action === undefined || !(actions as readonly string[]).includes(action) || extra.length > 0) {
    throw new ErpsyncError('USAGE', `backend takes one of ${actions.join(', ')}`, { details: ['see `erpsync backend --help`'] });
  }
  const config = await loadTargetsConfig({ config: flags.config }, io);
  const choice = backendChoiceOf(config, io.env);
  const print = (value: unknown, lines: () => string[]): void => {
    if (flags.json) io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    // What the database holds is evidence, not text to trust: a hostile row's control characters never reach the terminal.
    else for (const line of lines()) writeLine(io.stdout, printable(line));
  };
  if (action === 'migrate') {
    const outcome = await migrateBackend(choice, io);
    print(outcome, () => [
      outcome.applied.length === 0
        ? `The backend at ${outcome.where} (schema ${outcome.schema}) is at version ${outcome.version}: nothing to do.`
        : `The backend at ${outcome.where} (schema ${outcome.schema}) is now at version ${outcome.version} (applied ${outcome.applied.join(', ')}).`,
    ]);
    return 0;
  }
  if (action === 'status') {
    const status = await backendStatus(choice, io);
    print(status, () => statusLines(status));
    return 0;
  }
  const imported = await importIntoBackend(choice, config, io);
  print(imported, () => [
    `Imported into the backend at ${imported.where}:`,
    `  logins: ${imported.logins.imported.length} imported${imported.logins.imported.length ? ` (${imported.logins.imported.join(', ')})` : ''}, ${imported.logins.kept.length} kept (the backend's is as new or newer)`,
    `  journal: ${imported.journal.runs} runs, ${imported.journal.lines} lines new to the backend${imported.journal.failed.length ? `; not imported: ${imported.journal.failed.map((f) => `${f.run} (${f.reason})`).join(', ')}` : ''}`,
    `  read-back memory: ${imported.readBackAccounts} accounts`,
    'The local files are left as they are. Once the backend holds a login, delete its local file: a refresh from it would spend a token the backend no longer holds.',
  ]);
  return imported.journal.failed.length > 0 ? 1 : 0;
}

function statusLines(status: StatusOutcome): string[] {
  if (status.backend === 'local') return [`backend: local (${status.where})`];
  const { counts } = status;
  const advice = schemaAdvice(status);
  return [
    `backend: postgres at ${status.where}, schema ${status.schema}, version ${status.schemaVersion} (this erpsync: ${status.binarySchemaVersion})`,
    ...(advice ? [`  ${advice}`] : []),
    `  logins: ${counts.logins}`,
    ...status.logins.map((l) => `    ${l.target} ${l.baseUrl}: updated ${l.updatedAt}${l.expiresAt ? `, access token until ${l.expiresAt}` : ''}`),
    `  leases held: ${counts.leasesHeld}`,
    ...status.leases.filter((l) => !l.expired).map((l) => `    ${l.key}: ${l.holder}, renewed ${l.renewedAt}`),
    `  journal: ${counts.journalRuns} runs, ${counts.journalLines} lines`,
    `  drift results: ${counts.driftSnapshots}`,
    `  IP budget holders: ${counts.ipHolders}; read-back memory: ${counts.readBackAccounts} accounts; request counts: ${counts.quotaDays} account-days`,
  ];
}
