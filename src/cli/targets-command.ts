// `erpsync targets`: lists the targets of erpsync.config.yaml; with --check, opens each one and
// names the account it reaches (a fleet run that reads no manifests). `--json` prints the GitHub
// Actions matrix (`strategy.matrix: ${{ fromJSON(…) }}`): one job per target while they fit the
// 256 jobs of a matrix, else one job per shard of targets (fleet-shards.ts); every job names its
// `--shard I/N`, and a concurrency group so two jobs never change the same account at once. With
// --check, each OAuth target's job also says how its login stands (age, expiry, scopes; no token).
// With the config's `concurrency: { groups: N }`, every job is a concurrency group instead, each
// target's group beside it. --changed-since REF keeps the targets the changes since REF touch.
import { configureProcessGovernor, DEFAULT_BASE_URL, defaultTargetCredentialsFile, ownersOf } from '../api/index.js';
import type { TargetsConfig } from '../api/index.js';
import { backendChoiceOf } from '../target/resolve-target.js';
import type { FleetReport } from '../model/fleet.js';
import type { Shard } from '../workflows/fleet-shards.js';
import { concurrencyGroupName, concurrencyGroupOf, groupJobCountFor, namesOfShard, shardCountFor, shardsByGroup } from '../workflows/fleet-shards.js';
import { checkFleet, selectFleet } from '../workflows/fleet-workflow.js';
import { loginStoreFor } from '../target/login-store.js';
import type { LoginReport } from '../workflows/target-logins.js';
import { readTargetLogins, reportLogin } from '../workflows/target-logins.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { printable } from '../model/printable.js';
import { renderHelp } from './commands.js';
import { parseCommandFlags, targetsFlags } from './flags.js';
import { fleetProgress, printFleetTable } from './fleet-output.js';
import { readTargetRequest } from './target-request.js';

export async function runTargetsCommand(args: string[], io: RunIO): Promise<number> {
  const { flags } = parseCommandFlags('targets', targetsFlags, args, io.env);
  if (flags.help) {
    writeLine(io.stdout, renderHelp('targets'));
    return 0;
  }
  // No --target: every target of the config.
  const request = { ...readTargetRequest(flags), allTargets: flags.target === undefined };
  configureProcessGovernor(request.ipRunners, io.env.ERPSYNC_IP_WINDOW_SCALE);
  const fleet = await selectFleet(request, io);
  const { config, names } = fleet;
  const format = flags.json ? 'json' : 'text';
  const report = flags.check ? (await checkFleet(names, flags.parallel, fleet.resolve, io, fleetProgress('check', format, io))).report : undefined;
  if (flags.json) {
    // Read after the check: a target it opened may have refreshed its login.
    const logins = report ? await reportLogins(names, config, flags.config, io) : undefined;
    io.stdout.write(`${JSON.stringify(buildMatrix(names, config, report, request.ipRunners, logins), null, 2)}\n`);
  } else if (report) {
    printFleetTable(report, 'text', io);
  } else {
    const because = new Map(fleet.changed?.map((c) => [c.target, c.because]));
    for (const name of names) writeLine(io.stdout, `${describeEntry(name, config)}${because.has(name) ? `  · changed: ${describeReasons(because.get(name) ?? [])}` : ''}`);
  }
  return report?.exitCode ?? 0;
}

/** Why a target changed, in a line: the first few files or config parts, the rest counted. */
function describeReasons(because: readonly string[]): string {
  const shown = 3;
  return `${because.slice(0, shown).map((reason) => printable(reason)).join(', ')}${because.length > shown ? ` and ${because.length - shown} more` : ''}`;
}

/** Each target's login, as its login store holds it now (targets that keep none are left out). */
async function reportLogins(names: readonly string[], config: TargetsConfig | undefined, configFile: string | undefined, io: RunIO): Promise<ReadonlyMap<string, LoginReport>> {
  const opened = await loginStoreFor(backendChoiceOf(config, io.env), io);
  const found = await readTargetLogins(names, { config: configFile }, config, opened.logins, io);
  const now = Date.now();
  return new Map(
    found.flatMap((login) => {
      const reported = reportLogin(login, now);
      return reported ? [[login.target, reported] as const] : [];
    }),
  );
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
  const group = concurrencyGroupNameOf(name, config);
  const owners = ownersOf(config, name);
  return `${name}  ${where}  manifests: ${manifests}${group !== undefined ? `  group ${group}` : ''}${owners.length > 0 ? `  owners: ${owners.join(', ')}` : ''}${entry?.description ? `  — ${entry.description}` : ''}`;
}

/**
 * One matrix entry per job. Up to 256 targets, a job is one target: `group` is the concurrency
 * group, the account's id when --check read it (two targets on one account share it), else the
 * target name; `secret` names the repository secret holding its credentials file. Beyond, a job
 * is a shard of targets grouped by its shard. Every job lists `targets`, `secrets` and
 * `credentialsFiles` (one each for a one-target job), so one workflow serves both:
 * the cut depends only on the names, so a shard always holds the same accounts. With the config's
 * `concurrency: { groups: N }`, a job is a concurrency group (groups folded onto 256 jobs beyond
 * that) whatever the number of targets, named by it, each target's group beside it in
 * `concurrencyGroups`: a target's group depends on its name alone. `ipRunners`, when
 * given, is passed on for jobs whose runners share an egress IP (each keeps 1/N of its budget).
 * `logins` (from --check) adds each OAuth target's `login`, and a shard's `logins` beside its `targets`.
 * A target with owners (the config's `owners`, its own and its groups') has them as `owners`; a
 * job of several targets with any lists them as `targetOwners`, one list per target beside `targets`.
 */
export function buildMatrix(names: readonly string[], config: TargetsConfig | undefined, report: FleetReport | undefined, ipRunners?: number, logins?: ReadonlyMap<string, LoginReport>): { include: Record<string, unknown>[] } {
  const shared = ipRunners === undefined ? {} : { ipRunners };
  const groups = config?.concurrency?.groups;
  const jobOf = (name: string) => targetJob(name, config, report, logins);
  if (groups !== undefined) {
    const count = groupJobCountFor(groups);
    return {
      include: shardsByGroup(names, count, groups).flatMap((members, i) => {
        const shard = { index: i + 1, count };
        const jobs = members.map(jobOf);
        const group = count === groups ? concurrencyGroupName(shard.index, groups) : `erpsync-groups-${shard.index}-of-${count}`;
        return jobs.length === 0 ? [] : [{ ...shardJob(jobs, shard, group, logins !== undefined), concurrencyGroups: jobs.map((j) => j.concurrencyGroup), ...shared }];
      }),
    };
  }
  const count = shardCountFor(names.length);
  if (count >= names.length) {
    return {
      include: names.map((name, i) => {
        const job = jobOf(name);
        return { ...job, shard: `${i + 1}/${names.length}`, targets: [name], secrets: [job.secret], credentialsFiles: [job.credentialsFile], ...shared };
      }),
    };
  }
  return {
    include: Array.from({ length: count }, (_, i) => ({ ...shardJob(namesOfShard(names, { index: i + 1, count }).map(jobOf), { index: i + 1, count }, `erpsync-shard-${i + 1}-of-${count}`, logins !== undefined), ...shared })),
  };
}

/** A job of several targets: its shard, its concurrency group, and each target's facts side by side. */
function shardJob(jobs: readonly TargetJob[], shard: Shard, group: string, withLogins: boolean): Record<string, unknown> {
  return {
    shard: `${shard.index}/${shard.count}`,
    group,
    targets: jobs.map((j) => j.target),
    secrets: jobs.map((j) => j.secret),
    credentialsFiles: jobs.map((j) => j.credentialsFile),
    ...(withLogins ? { logins: jobs.map((j) => j.login ?? null) } : {}),
    ...(jobs.some((j) => j.owners) ? { targetOwners: jobs.map((j) => j.owners ?? []) } : {}),
  };
}

type TargetJob = { target: string; secret: string; credentialsFile: string; concurrencyGroup?: string; login?: LoginReport; owners?: string[] } & Record<string, unknown>;

function targetJob(name: string, config: TargetsConfig | undefined, report: FleetReport | undefined, logins: ReadonlyMap<string, LoginReport> | undefined): TargetJob {
  const row = report?.rows.find((r) => r.target === name);
  const login = logins?.get(name);
  const concurrencyGroup = concurrencyGroupNameOf(name, config);
  const owners = ownersOf(config, name);
  return {
    target: name,
    baseUrl: baseUrlOf(name, config),
    group: row?.account ? `erpsync-account-${row.account.id}` : `erpsync-target-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`,
    // Where the job restores the target's OAuth credentials from, and into which file.
    secret: `BLING_CREDENTIALS_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
    credentialsFile: config?.targets[name]?.credentials?.file ?? defaultTargetCredentialsFile(name),
    ...(concurrencyGroup !== undefined ? { concurrencyGroup } : {}),
    ...(row?.account ? { account: row.account.nome, cnpj: row.account.cnpj } : {}),
    ...(row?.error !== undefined ? { error: row.error } : {}),
    ...(login ? { login } : {}),
    ...(owners.length > 0 ? { owners } : {}),
  };
}

/** The target's concurrency group (`erpsync-07`), when the config declares groups. */
function concurrencyGroupNameOf(name: string, config: TargetsConfig | undefined): string | undefined {
  const groups = config?.concurrency?.groups;
  return groups === undefined ? undefined : concurrencyGroupName(concurrencyGroupOf(name, groups), groups);
}
