// `erpsync targets`: lists the targets of erpsync.config.yaml; with --check, opens each one and
// names the account it reaches (a fleet run that reads no manifests). `--json` prints the GitHub
// Actions matrix (`strategy.matrix: ${{ fromJSON(…) }}`): one job per target, and a concurrency
// group per account so two jobs never change the same account at once.
import { DEFAULT_BASE_URL, defaultTargetCredentialsFile, selectTargets } from '../api/index.js';
import type { TargetsConfig } from '../api/index.js';
import { exitCodes } from '../model/errors.js';
import type { FleetReport } from '../model/fleet.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';
import { fleetProgress, writeFleetReport } from './fleet-output.js';
import { runFleet } from './fleet-workflow.js';
import { parseCommandArgs } from './parse-command-args.js';
import { loadTargetsConfig } from './target.js';

const help = [
  'usage: erpsync targets [--check] [--json] [--target PATTERNS] [options]',
  '',
  'Lists the targets of erpsync.config.yaml (see docs/config.md).',
  '',
  'options:',
  '  --check                open every target and name the account it reaches (exit 1 if one fails)',
  "  --target PATTERNS      only these targets: names or globs, comma-separated ('lojas/*')",
  '  --json                 a GitHub Actions matrix: {"include": [{"target", "baseUrl", "group", …}]}',
  '  --parallel N           targets checked at once (default 4)',
  '  --config FILE          config file (ERPSYNC_CONFIG; default erpsync.config.yaml)',
].join('\n');

export async function runTargetsCommand(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs('targets', args, {
    check: { type: 'boolean' },
    json: { type: 'boolean' },
    target: { type: 'string' },
    parallel: { type: 'string' },
    config: { type: 'string' },
    debug: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  const flags = parsed.values;
  if (flags.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const config = await loadTargetsConfig(flags, io);
  const names = selectTargets(config, { patterns: flags.target, all: flags.target === undefined });
  const format = flags.json ? 'json' : 'text';
  const report = flags.check
    ? await runFleet(
        { command: 'check', flags: { ...flags, target: names.join(','), 'all-targets': false }, paths: [], io, withoutManifests: true, onRow: fleetProgress('check', format === 'json' ? 'json' : 'text', io) },
        async () => ({ changes: 0, exitCode: exitCodes.ok }),
      )
    : undefined;
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(buildMatrix(names, config, report), null, 2)}\n`);
  } else if (report) {
    writeFleetReport(report, 'text', io);
  } else {
    for (const name of names) writeLine(io.stdout, describeEntry(name, config));
  }
  return report?.exitCode ?? 0;
}

function baseUrlOf(name: string, config: TargetsConfig | undefined): string {
  const entry = config?.targets[name];
  return entry?.sandbox ? `sandbox:${entry.sandbox.state}` : (entry?.baseUrl ?? DEFAULT_BASE_URL);
}

function describeEntry(name: string, config: TargetsConfig | undefined): string {
  const entry = config?.targets[name];
  const credentials = entry?.credentials?.tokenEnv ? `token from ${entry.credentials.tokenEnv}` : `OAuth (${entry?.credentials?.file ?? 'erpsync login --target ' + name})`;
  const manifests = entry?.manifests?.join(' + ') ?? '(paths on the command line)';
  const where = entry?.sandbox ? `sandbox (state in ${entry.sandbox.state})` : `${baseUrlOf(name, config)}  ${credentials}`;
  return `${name}  ${where}  manifests: ${manifests}${entry?.description ? `  — ${entry.description}` : ''}`;
}

/**
 * One matrix entry per target. `group` is the concurrency group: the account's id when --check
 * read it (two targets on one account share it), else the target name (one target, one account).
 * `secret` names the repository secret holding the target's credentials file.
 */
export function buildMatrix(names: readonly string[], config: TargetsConfig | undefined, report: FleetReport | undefined): { include: Record<string, unknown>[] } {
  return {
    include: names.map((name) => {
      const row = report?.rows.find((r) => r.target === name);
      return {
        target: name,
        baseUrl: baseUrlOf(name, config),
        group: row?.account ? `erpsync-account-${row.account.id}` : `erpsync-target-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`,
        // Where the job restores the target's OAuth credentials from, and into which file.
        secret: `BLING_CREDENTIALS_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
        credentialsFile: config?.targets[name]?.credentials?.file ?? defaultTargetCredentialsFile(name),
        ...(row?.account ? { account: row.account.nome, cnpj: row.account.cnpj } : {}),
        ...(row?.error !== undefined ? { error: row.error } : {}),
      };
    }),
  };
}
