// Every flag of every command, in one table: its type, its environment twin, its placeholder and
// its help text. Parsing (node:util parseArgs), each command's --help, the env twins and shell
// completion are all generated from this table, so a flag exists everywhere or nowhere. A value is
// read and checked here, once; the commands receive typed values and never look at the env twin.
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { ErpsyncError } from '../model/errors.js';
import { suggestClosest } from '../model/suggest.js';

export type CommandName = 'validate' | 'plan' | 'apply' | 'drift' | 'export' | 'compare' | 'import' | 'doctor' | 'sandbox' | 'targets' | 'login' | 'completion' | 'history' | 'report' | 'backend';

type Raw = string | boolean | (string | boolean)[] | undefined;

interface FlagSpec<T> {
  type: 'boolean' | 'string';
  multiple?: true;
  short?: string;
  /** The environment variable read when the flag is absent. */
  env?: string;
  /** The value's placeholder in --help (`N`, `FILE`) or its choices (`text|markdown`). */
  value?: string;
  /** Help lines; a command may word the same flag its own way. */
  help: string | readonly string[] | Partial<Record<CommandName, string | readonly string[]>>;
  /** Turns the raw value (flag, else env twin) into the setting; throws a usage error. */
  read: (raw: Raw, flag: string) => T;
}

const defineFlag = <T>(spec: FlagSpec<T>): FlagSpec<T> => spec;

const readSwitch = (raw: Raw): boolean => raw === true || (typeof raw === 'string' && /^(1|true|yes)$/i.test(raw.trim()));
const readText = (raw: Raw): string | undefined => (typeof raw === 'string' && raw.trim() !== '' ? raw : undefined);
const readList = (raw: Raw): string[] => (Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : []);

/** What a numeric flag takes: whole numbers from `min` (default 0), or any number above `above` (and at most `max`). */
type NumberRange = { min?: number } | { above: number; max?: number };

/** The table's one numeric reader: the flag's number within its range, or undefined when not given. */
export function readNumber(raw: Raw, flag: string, range: NumberRange = {}): number | undefined {
  const text = readText(raw);
  if (text === undefined) return undefined;
  const n = Number(text);
  if ('above' in range) {
    const max = range.max ?? Number.POSITIVE_INFINITY;
    if (Number.isFinite(n) && n > range.above && n <= max) return n;
    throw new ErpsyncError('USAGE', `${flag} takes a number above ${range.above}${range.max === undefined ? '' : ` and at most ${range.max}`}, not \`${text}\``);
  }
  const min = range.min ?? 0;
  if (!Number.isInteger(n) || n < min) throw new ErpsyncError('USAGE', `${flag} takes a whole number ≥ ${min}, not \`${text}\``);
  return n;
}

/** A duration in ms from `2h`, `90m`, `1h30m`, `45s` or plain seconds (`7200`); undefined when not given. */
export function readDuration(raw: Raw, flag: string): number | undefined {
  const text = readText(raw)?.trim();
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const parts = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (parts === null || text === '') throw new ErpsyncError('USAGE', `${flag} takes a duration (2h, 90m, 1h30m, 45s) or seconds, not \`${text}\``);
  const [hours = 0, minutes = 0, seconds = 0] = parts.slice(1).map((part) => Number(part ?? 0));
  return ((hours * 60 + minutes) * 60 + seconds) * 1000;
}

const secondsToMs = (value: number | undefined): number | undefined => (value === undefined ? undefined : value * 1000);

const oneOf =
  (choices: readonly string[]) =>
  (raw: Raw, flag: string): string | undefined => {
    const text = readText(raw);
    if (text !== undefined && !choices.includes(text)) throw new ErpsyncError('USAGE', `${flag} takes ${choices.join(', ')}, not \`${text}\``);
    return text;
  };

export const flagTable = {
  help: defineFlag({ type: 'boolean', short: 'h', help: 'show this help', read: readSwitch }),
  json: defineFlag({
    type: 'boolean',
    help: {
      validate: 'print a JSON report instead of text',
      plan: 'print the plan as JSON (a fleet: every store\'s plan and the table)',
      apply: 'one JSON object per event on stdout (NDJSON), no prompts',
      drift: 'the same as --format json',
      export: 'print a JSON summary of the files (with --out)',
      compare: 'print the comparison as JSON',
      import: 'print what was written (and each store\'s overlay size) as JSON',
      targets: [
        'a GitHub Actions matrix: {"include": [{"target", "baseUrl", "group", …}]} (one job',
        "per concurrency group when the config declares them); with --check, each OAuth",
        "target's `login` (age, expiry, scopes; never a token)",
      ],
      history: 'the runs (or one run with its changes) as JSON',
      login: "with --refresh: each target's outcome as JSON (never a token)",
    },
    read: readSwitch,
  }),
  quiet: defineFlag({ type: 'boolean', help: 'hide notes', read: readSwitch }),
  'plan-format': defineFlag({ type: 'string', value: 'text|markdown', help: 'markdown: for a pull-request comment or the GitHub step summary', read: oneOf(['text', 'markdown']) }),
  'drift-format': defineFlag({ type: 'string', value: 'text|json|markdown|junit', help: 'report format (default text)', read: oneOf(['text', 'json', 'markdown', 'junit']) }),
  out: defineFlag({
    type: 'string',
    value: 'PATH',
    help: {
      plan: ['save the plan for `erpsync apply PATH` (a file ending in .json; a fleet: a folder', 'with one plan per store and an index, for `erpsync apply DIR`)'],
      drift: ['also write the full report (never cut) to PATH; a fleet: one report per', 'store, PATH/<target>.txt|json|md|xml'],
      export: ['write one file per kind into the folder PATH (created when missing); without', 'it, every kind goes to stdout as one multi-document YAML stream'],
    },
    read: readText,
  }),
  revert: defineFlag({
    type: 'string',
    value: 'RUN',
    help: [
      'plan the undoing of a run of the journal (`erpsync history`): delete what it',
      'created, re-create what it deleted, restore what it updated; records changed',
      'since the run are shown as conflicts and left alone. With --all-targets or a',
      'glob: every store of the fleet apply RUN was part of (or RUN, a fleet id)',
    ],
    read: readText,
  }),
  'revert-conflicts': defineFlag({ type: 'boolean', help: 'with --revert: undo records changed since the run too (overwrites those changes)', read: readSwitch }),
  html: defineFlag({ type: 'string', value: 'FILE', help: 'write the fleet dashboard: one static HTML file that opens from disk', read: readText }),
  drift: defineFlag({ type: 'string', multiple: true, value: 'PATH', help: ['drift results to show: files or folders of `drift --all-targets --json`', 'output kept over time (repeatable)'], read: readList }),
  days: defineFlag({ type: 'string', value: 'N', help: 'days of history the dashboard shows (default 90)', read: (raw, flag) => readNumber(raw, flag, { min: 1 }) ?? 90 }),
  'detailed-exitcode': defineFlag({ type: 'boolean', help: 'exit 2 when there are changes, blocked ones included (0 none, 1 error)', read: readSwitch }),
  'allow-replace': defineFlag({ type: 'boolean', help: 'delete and re-create records the API cannot change in place', read: readSwitch }),
  'allow-cascade': defineFlag({
    type: 'boolean',
    help: ['plan the removal of undeclared records that name a removed one (or of their', 'names of it), and have records name a replaced one\'s new record, instead of blocking'],
    read: readSwitch,
  }),
  'max-deletes': defineFlag({ type: 'string', value: 'N', help: 'delete budget of this run, per store (default: policy.maxDeletes, 10)', read: (raw, flag) => readNumber(raw, flag) }),
  verbose: defineFlag({ type: 'boolean', help: 'show every field of every change (a terminal folds large plans harder)', read: readSwitch }),
  only: defineFlag({
    type: 'string',
    multiple: true,
    value: 'KIND[/IDENTITY]',
    help: ['only these records (repeatable; globs: `gruposProdutos/Revenda > *`);', 'a plan keeps what they depend on too, says so, and is partial'],
    read: readList,
  }),
  exclude: defineFlag({ type: 'string', multiple: true, value: 'KIND[/IDENTITY]', help: 'leave these records out (repeatable, globs)', read: readList }),
  'auto-approve': defineFlag({ type: 'boolean', help: 'do not ask for confirmation (needed without a terminal)', read: readSwitch }),
  concurrency: defineFlag({ type: 'string', value: 'N', help: 'changes in flight at once inside a wave (default 3)', read: (raw, flag) => readNumber(raw, flag, { min: 1 }) ?? 3 }),
  'lock-timeout': defineFlag({
    type: 'string',
    value: 'S',
    env: 'ERPSYNC_LOCK_TIMEOUT',
    help: ['seconds to wait while another apply holds the account (default 0:', 'refuse at once, exit 3)'],
    read: (raw, flag) => (readNumber(raw, flag) ?? 0) * 1000,
  }),
  'outcome-wait': defineFlag({
    type: 'string',
    value: 'S',
    env: 'ERPSYNC_OUTCOME_WAIT',
    help: {
      apply: ['seconds a create of unknown outcome (timeout, lost connection) may still', 'commit: it is looked up that long before it may be sent again (default 30)'],
      plan: ['with --revert: seconds a write of a run that died may still commit: waited', "out before the run's unknown outcomes are settled by reading the account (default 30)"],
      history: ['seconds a write of a run that died may still commit: waited out before', "the run's unknown outcomes are settled by reading the account (default 30)"],
    },
    read: (raw, flag) => (readNumber(raw, flag) ?? 30) * 1000,
  }),
  baseline: defineFlag({
    type: 'string',
    value: 'REF',
    env: 'ERPSYNC_BASELINE',
    help: ['git revision of the manifests last applied: tells changes pending from git', 'apart from changes made in the ERP'],
    read: readText,
  }),
  'include-builtin': defineFlag({
    type: 'boolean',
    help: ["list the account's own records (built-in, fixa, native, untouched", 'defaults) as unmanaged too'],
    read: readSwitch,
  }),
  notify: defineFlag({
    type: 'string',
    value: 'FILE',
    help: ['write one notification per store to FILE (JSON, schemas/drift-notify.schema.json)', 'for a CI job to post: `open` when it drifted, `close` when in sync, `error`', 'when it could not be checked; each with a stable key, owners, title, body, text'],
    read: readText,
  }),
  'markdown-limit': defineFlag({ type: 'string', value: 'N', help: 'most characters of markdown output (default 60000)', read: (raw, flag) => readNumber(raw, flag) }),
  'report-url': defineFlag({ type: 'string', value: 'URL', env: 'ERPSYNC_REPORT_URL', help: 'where the full report is, named when markdown is cut', read: readText }),
  adopt: defineFlag({
    type: 'boolean',
    help: [
      "write the account's values of modified fields into the manifest files, in",
      'place (comments, order and ${VAR} references kept; secrets and fields fed',
      'by variables are reported as not adoptable), and add unmanaged records to',
      "the target's own file of their kind (else its overlay); only into files that",
      'belong to this target alone: a file other targets read is refused and named',
    ],
    read: readSwitch,
  }),
  kinds: defineFlag({ type: 'string', value: 'LIST', help: 'kinds to export, comma-separated (default: all)', read: readText }),
  schema: defineFlag({ type: 'string', value: 'REF', help: ["the `$schema=` target of each file's first line (default: the schema", 'shipped with erpsync, relative to the files)'], read: readText }),
  check: defineFlag({ type: 'boolean', help: 'open every target and name the account it reaches (exit 1 if one fails)', read: readSwitch }),
  target: defineFlag({
    type: 'string',
    value: 'NAME',
    env: 'ERPSYNC_TARGET',
    help: {
      validate: 'check the manifests of a target of erpsync.config.yaml (its layers and variables)',
      targets: "only these targets: names or globs, comma-separated ('lojas/*')",
      login: ['a target from erpsync.config.yaml; with --refresh, several names (a,b) or', "globs ('lojas/*')"],
      export: 'a target from erpsync.config.yaml',
      import: ['a target of erpsync.config.yaml (its overlay is written); several names', "(a,b) or globs ('lojas/*') import a fleet"],
      plan: ['a target from erpsync.config.yaml; several names (a,b) or globs', "('lojas/*') run a fleet: each store's plan, then one table"],
      apply: ['a target from erpsync.config.yaml; several names (a,b) or globs', "('lojas/*') run a fleet: each store's plan, then one table"],
      drift: ['a target from erpsync.config.yaml; several names (a,b) or globs', "('lojas/*') run a fleet: each store's report, then one table"],
      history: "only this target's runs (its own journal folder when the config sets one)",
      report: "only this target's runs and drift",
    },
    read: readText,
  }),
  'compare-target': defineFlag({
    type: 'string',
    multiple: true,
    value: 'NAME',
    env: 'ERPSYNC_TARGET',
    help: ['a target of erpsync.config.yaml; twice (--target a --target b) compares two', 'stores, once with a manifest folder compares the folder with the store'],
    read: (raw) => (Array.isArray(raw) ? readList(raw) : typeof raw === 'string' && raw.trim() !== '' ? [raw] : []),
  }),
  'from-target': defineFlag({
    type: 'string',
    value: 'NAME',
    help: ['make the store match this target (a template store): its account read and', 'exported in memory as manifests, with the store\'s own variables (across a', 'fleet: every store but the template, each with its own)'],
    read: readText,
  }),
  base: defineFlag({ type: 'string', value: 'PATH', help: ["the base manifests (default: every layer of the target's `manifests` but", 'the last, which is the overlay written)'], read: readText }),
  'suggest-base': defineFlag({
    type: 'string',
    value: 'DIR',
    help: ['propose a base instead: write into DIR the records and fields most stores', 'share (--min-share), and report each store\'s overlay size with it; no overlay', 'is written'],
    read: readText,
  }),
  'min-share': defineFlag({
    type: 'string',
    value: 'X',
    help: 'with --suggest-base: the share of stores (0–1) a record must be in (default 0.8)',
    read: (raw, flag) => readNumber(raw, flag, { above: 0, max: 1 }) ?? 0.8,
  }),
  'changed-since': defineFlag({
    type: 'string',
    value: 'REF',
    help: {
      targets: ['only the targets whose manifests or config entry changed between the git', 'revision REF and the working tree (a shared file: every target reading it)'],
      plan: ['a fleet of the targets whose manifests or config entry changed between the', 'git revision REF and the working tree (within --target when given)'],
      drift: ['a fleet of the targets whose manifests or config entry changed between the', 'git revision REF and the working tree (within --target when given)'],
    },
    read: readText,
  }),
  'comment-dir': defineFlag({
    type: 'string',
    value: 'DIR',
    help: ['across a fleet: also write the plan as pull-request comments, DIR/comment-1.md …', 'each under --comment-limit, summary table and removals first, and DIR/index.json'],
    read: readText,
  }),
  'comment-limit': defineFlag({
    type: 'string',
    value: 'N',
    help: 'most characters (UTF-16 code units, as GitHub counts) of one comment (default 65000)',
    // Under GitHub's 65,536 by default; below 10,000 a comment could not hold a table row and a store's heading.
    read: (raw, flag) => readNumber(raw, flag, { min: 10_000 }) ?? 65_000,
  }),
  'all-targets': defineFlag({ type: 'boolean', help: 'run across every target of the config (a fleet)', read: readSwitch }),
  parallel: defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_PARALLEL', help: 'the most stores in flight at once in a fleet (default: as many as the per-IP request budget keeps busy)', read: (raw, flag) => readNumber(raw, flag, { min: 1 }) }),
  'base-url': defineFlag({ type: 'string', value: 'URL', env: 'ERPSYNC_BASE_URL', help: 'API base URL (default https://api.bling.com.br/Api/v3)', read: readText }),
  sandbox: defineFlag({ type: 'boolean', env: 'ERPSYNC_SANDBOX', help: 'use the embedded sandbox', read: readSwitch }),
  'sandbox-state': defineFlag({ type: 'string', value: 'FILE', env: 'ERPSYNC_SANDBOX_STATE', help: 'sandbox state file (default .erpsync/sandbox.json)', read: readText }),
  rate: defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_RATE', help: 'requests per second (default 2.9)', read: (raw, flag) => readNumber(raw, flag, { above: 0 }) }),
  canary: defineFlag({ type: 'string', value: 'NAMES|N', env: 'ERPSYNC_CANARY', help: "a fleet apply's first stage: names or globs (a,b), or the first N stores; the rest follow in waves", read: readText }),
  'wave-size': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_WAVE_SIZE', help: 'stores per wave after the canary (default: all the rest at once)', read: readText }),
  'halt-after': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_HALT_AFTER', help: 'stop a staged fleet apply after N failed stores (default 1); the rest are skipped', read: readText }),
  shard: defineFlag({ type: 'string', value: 'I/N', env: 'ERPSYNC_SHARD', help: "only shard I of N of the fleet's targets (one CI job each; `targets --json` plans them)", read: readText }),
  'ip-runners': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_IP_RUNNERS', help: "runners sharing this machine's egress IP: each keeps 1/N of the per-IP request budget (default 1)", read: (raw, flag) => readNumber(raw, flag, { min: 1 }) }),
  'max-requests': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_MAX_REQUESTS', help: 'stop before sending more than N requests', read: (raw, flag) => readNumber(raw, flag, { min: 1 }) }),
  'request-timeout': defineFlag({
    type: 'string',
    value: 'S',
    env: 'ERPSYNC_REQUEST_TIMEOUT',
    help: 'seconds one request may take, headers and body together (default 60)',
    read: (raw, flag) => secondsToMs(readNumber(raw, flag, { min: 1 })),
  }),
  'store-timeout': defineFlag({
    type: 'string',
    value: 'S',
    env: 'ERPSYNC_STORE_TIMEOUT',
    help: ['seconds one store of a fleet may take: past it the store stops and is', 'reported as failed (timeout) while the others go on (default 1800)'],
    read: (raw, flag) => secondsToMs(readNumber(raw, flag, { min: 1 })),
  }),
  config: defineFlag({ type: 'string', value: 'FILE', env: 'ERPSYNC_CONFIG', help: 'config file (default erpsync.config.yaml)', read: readText }),
  debug: defineFlag({ type: 'boolean', env: 'ERPSYNC_DEBUG', help: 'trace every request on stderr, secrets redacted', read: (raw) => raw === true || raw === '1' }),
  'client-id': defineFlag({ type: 'string', value: 'ID', help: 'OAuth client id (default: the target\'s clientId, or BLING_CLIENT_ID)', read: readText }),
  'redirect-uri': defineFlag({ type: 'string', value: 'URI', env: 'ERPSYNC_REDIRECT_URI', help: "the app's registered redirect URI on this machine (default http://127.0.0.1:8719/callback)", read: readText }),
  timeout: defineFlag({ type: 'string', value: 'SECONDS', help: 'how long to wait for the browser (default 300)', read: (raw, flag) => readNumber(raw, flag, { min: 1 }) ?? 300 }),
  refresh: defineFlag({
    type: 'boolean',
    help: ['token upkeep (no browser): refresh the stored logins whose access token', 'expires within --within; run hourly, a nightly fleet starts with valid tokens'],
    read: readSwitch,
  }),
  within: defineFlag({
    type: 'string',
    value: 'DURATION',
    env: 'ERPSYNC_REFRESH_WITHIN',
    help: ['with --refresh: refresh the logins whose access token expires within this', 'long (2h, 90m, 1h30m, or seconds; default 2h)'],
    read: readDuration,
  }),
  'dry-run': defineFlag({ type: 'boolean', help: "with --refresh: list each login's state and what would be refreshed; nothing is sent", read: readSwitch }),
  port: defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_SANDBOX_PORT', help: 'port to listen on; 0 picks a free one (default 0)', read: readText }),
  state: defineFlag({ type: 'string', value: 'FILE', env: 'ERPSYNC_SANDBOX_STATE', help: 'state file, reloaded on start (default .erpsync/sandbox.json)', read: readText }),
  seed: defineFlag({ type: 'string', value: 'S', env: 'ERPSYNC_SANDBOX_SEED', help: 'fresh | empty | FILE: first state when the state file does not exist (default fresh)', read: readText }),
  'rate-limit': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_SANDBOX_RATE_LIMIT', help: 'requests per second, 0 = off (default 3)', read: readText }),
  'daily-limit': defineFlag({ type: 'string', value: 'N', env: 'ERPSYNC_SANDBOX_DAILY_LIMIT', help: 'requests per day, 0 = off (default 120000)', read: readText }),
  faults: defineFlag({
    type: 'string',
    value: 'SPEC',
    env: 'ERPSYNC_SANDBOX_FAULTS',
    help: ['fault injection, e.g. p=0.1,seed=7,kinds=http503+reset-after or', 'POST/situacoes#1=http500'],
    read: readText,
  }),
  token: defineFlag({ type: 'string', value: 'T', env: 'ERPSYNC_SANDBOX_TOKEN', help: 'bearer token to accept (default: random)', read: readText }),
  scopes: defineFlag({
    type: 'string',
    value: 'LIST',
    env: 'ERPSYNC_SANDBOX_SCOPES',
    help: ["the token's scopes, comma-separated resource paths (formas-pagamentos,", 'categorias-receitas-despesas,empresas …); default: every scope'],
    read: readText,
  }),
} as const;

export type FlagKey = keyof typeof flagTable;

/** The command-line name of a table entry: the two `format` entries are one flag of two commands. */
export function flagNameOf(key: FlagKey): string {
  if (key === 'compare-target') return 'target';
  return key === 'plan-format' || key === 'drift-format' ? 'format' : key;
}

type FlagValue<K extends FlagKey> = ReturnType<(typeof flagTable)[K]['read']>;

/** What a command's flags parse to: one typed value per flag, the env twin already read. */
export type ParsedFlags<K extends FlagKey> = { [P in K]: FlagValue<P> };

export interface ParsedCommand<K extends FlagKey> {
  flags: ParsedFlags<K>;
  positionals: string[];
}

/** Parses argv against the command's flags from the table: unknown flags and bad values are usage errors naming the closest flag. */
export function parseCommandFlags<K extends FlagKey>(command: CommandName, keys: readonly K[], args: string[], env: NodeJS.ProcessEnv): ParsedCommand<K> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const key of keys) {
    const spec: FlagSpec<unknown> = flagTable[key];
    options[flagNameOf(key)] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
  }
  let parsed: { values: Record<string, Raw>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ErpsyncError('USAGE', describeParseError(command, error as Error & { code?: string }, keys), { cause: error });
  }
  const flags = {} as Record<string, unknown>;
  const help = parsed.values.help === true;
  for (const key of keys) {
    const spec: FlagSpec<unknown> = flagTable[key];
    const name = flagNameOf(key);
    const given = parsed.values[name];
    const raw = given ?? (spec.env === undefined ? undefined : env[spec.env] || undefined);
    // --help answers even when another flag's value is wrong.
    flags[key] = help && key !== 'help' ? safeRead(spec, raw, name) : spec.read(raw, given === undefined && spec.env !== undefined && raw !== undefined ? spec.env : `--${name}`);
  }
  return { flags: flags as ParsedFlags<K>, positionals: parsed.positionals };
}

function safeRead(spec: FlagSpec<unknown>, raw: Raw, name: string): unknown {
  try {
    return spec.read(raw, `--${name}`);
  } catch {
    return spec.read(undefined, `--${name}`);
  }
}

/** parseArgs' own text quotes unevenly and suggests `--` tricks; say what was wrong in our words. */
function describeParseError(command: CommandName, error: Error & { code?: string }, keys: readonly FlagKey[]): string {
  const help = `run \`erpsync ${command} --help\` for its options`;
  const flagNames = keys.flatMap((key) => [`--${flagNameOf(key)}`, ...(flagTable[key].type === 'boolean' && 'short' in flagTable[key] ? [`-${String(flagTable[key].short)}`] : [])]);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'(-{1,2}[^'=\s]+)/.exec(error.message)?.[1] ?? 'option';
    const closest = suggestClosest(given, flagNames.filter((f) => f.startsWith('--')));
    return `\`erpsync ${command}\` has no option ${given}${closest ? `; did you mean ${closest}?` : ''} (${help})`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = flagNames.find((f) => error.message.includes(`${f} `) || error.message.includes(`${f}'`) || error.message.includes(`${f}=`));
    const what = /argument missing/.test(error.message) ? 'needs a value' : 'takes no value';
    return `${flag ?? 'an option'} ${what} (${help})`;
  }
  return `${error.message.replaceAll(/["']/g, '`')} (${help})`;
}

// Which flags each command takes.
/** Where a command points: every command that reaches an account takes these. */
export const targetFlags = ['target', 'all-targets', 'parallel', 'base-url', 'sandbox', 'sandbox-state', 'rate', 'max-requests', 'request-timeout', 'ip-runners', 'shard', 'config', 'debug'] as const satisfies readonly FlagKey[];
export const selectionFlags = ['only', 'exclude'] as const satisfies readonly FlagKey[];

export const planFlags = ['json', 'plan-format', 'out', 'comment-dir', 'comment-limit', 'changed-since', 'revert', 'revert-conflicts', 'outcome-wait', 'detailed-exitcode', 'from-target', 'allow-replace', 'allow-cascade', 'max-deletes', 'verbose', ...selectionFlags, 'help', ...targetFlags, 'store-timeout'] as const satisfies readonly FlagKey[];
export const applyFlags = ['auto-approve', 'from-target', 'allow-replace', 'allow-cascade', 'max-deletes', 'concurrency', 'lock-timeout', 'outcome-wait', 'canary', 'wave-size', 'halt-after', 'json', ...selectionFlags, 'help', ...targetFlags, 'store-timeout'] as const satisfies readonly FlagKey[];
export const driftFlags = ['drift-format', 'json', 'out', 'notify', 'baseline', 'include-builtin', 'markdown-limit', 'report-url', 'adopt', ...selectionFlags, 'help', 'changed-since', ...targetFlags, 'store-timeout'] as const satisfies readonly FlagKey[];
export const compareFlags = ['json', 'plan-format', 'compare-target', 'rate', 'max-requests', 'request-timeout', 'config', 'debug', 'help'] as const satisfies readonly FlagKey[];
export const importFlags = ['base', 'suggest-base', 'min-share', 'json', 'help', ...targetFlags] as const satisfies readonly FlagKey[];
export const exportFlags = ['kinds', 'out', 'schema', 'json', 'help', ...targetFlags] as const satisfies readonly FlagKey[];
export const doctorFlags = ['json', 'help', ...targetFlags] as const satisfies readonly FlagKey[];
export const validateFlags = ['target', 'config', 'json', 'quiet', 'help', 'debug'] as const satisfies readonly FlagKey[];
export const targetsFlags = ['check', 'target', 'changed-since', 'json', 'parallel', 'ip-runners', 'config', 'help', 'debug'] as const satisfies readonly FlagKey[];
export const loginFlags = ['target', 'base-url', 'config', 'client-id', 'redirect-uri', 'timeout', 'refresh', 'within', 'dry-run', 'all-targets', 'json', 'ip-runners', 'help', 'debug'] as const satisfies readonly FlagKey[];
export const sandboxFlags = ['port', 'state', 'seed', 'rate-limit', 'daily-limit', 'faults', 'token', 'scopes', 'help', 'debug'] as const satisfies readonly FlagKey[];
export const completionFlags = ['help'] as const satisfies readonly FlagKey[];
export const historyFlags = ['json', 'target', 'outcome-wait', 'config', 'help'] as const satisfies readonly FlagKey[];
export const backendFlags = ['json', 'config', 'help'] as const satisfies readonly FlagKey[];
export const reportFlags = ['html', 'drift', 'days', 'target', 'config', 'help'] as const satisfies readonly FlagKey[];


/** A flag as --help and completion describe it. */
export interface FlagHelp {
  flag: string;
  value?: string;
  lines: readonly string[];
  env?: string;
}

export function describeFlag(command: CommandName, key: FlagKey): FlagHelp {
  const spec: FlagSpec<unknown> = flagTable[key];
  const help = spec.help;
  const own = typeof help === 'string' || Array.isArray(help) ? help : ((help as Partial<Record<CommandName, string | readonly string[]>>)[command] ?? '');
  const lines = typeof own === 'string' ? [own] : [...(own as readonly string[])];
  return { flag: `--${flagNameOf(key)}`, ...(spec.value ? { value: spec.value } : {}), lines, ...(spec.env ? { env: spec.env } : {}) };
}

/** The option lines of a command's --help: `  --flag VALUE           help (ENV)`. */
export function renderFlagLines(command: CommandName, keys: readonly FlagKey[]): string[] {
  const width = 23;
  return keys.flatMap((key) => {
    const { flag, value, lines, env } = describeFlag(command, key);
    const short = key === 'help' ? '-h, ' : '';
    const head = `  ${short}${flag}${value ? ` ${value}` : ''}`;
    const text = [...lines];
    if (env) text[text.length - 1] = `${text[text.length - 1] ?? ''} (${env})`;
    const [first = '', ...rest] = text;
    const indent = ' '.repeat(width + 2);
    return head.length <= width ? [`${head.padEnd(width)}  ${first}`, ...rest.map((l) => `${indent}${l}`)] : [head, ...text.map((l) => `${indent}${l}`)];
  });
}
