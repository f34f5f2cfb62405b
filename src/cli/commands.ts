// The commands: what each is for and which flags of the table it takes. Usage, every --help and
// shell completion are drawn from here (main.ts says where each command's code is).
import type { RunIO } from '../model/run-io.js';
import type { CommandName, FlagKey } from './flags.js';
import { applyFlags, backendFlags, compareFlags, completionFlags, doctorFlags, driftFlags, exportFlags, historyFlags, importFlags, loginFlags, planFlags, renderFlagLines, reportFlags, sandboxFlags, targetsFlags, validateFlags } from './flags.js';

export type CommandRunner = (args: string[], io: RunIO) => Promise<number>;

export interface CommandSpec {
  name: CommandName;
  summary: string;
  usage: string;
  /** Paragraph lines between the usage line and the options. */
  about: readonly string[];
  flags: readonly FlagKey[];
  /** Lines after the options (exit codes, examples). */
  footer?: readonly string[];
}

export const commandSpecs: readonly CommandSpec[] = [
  {
    name: 'validate',
    summary: 'check manifests offline (schema, references, secrets)',
    usage: 'erpsync validate [paths…] [options]',
    about: ['Checks manifest files and directories (read recursively) without contacting any account:', 'YAML syntax, the manifest schema, references, duplicates, secrets. Paths default to the', 'current directory.'],
    flags: validateFlags,
    footer: ['exit codes: 0 valid (warnings allowed), 1 invalid or a usage error'],
  },
  {
    name: 'plan',
    summary: 'show what apply would change in the account',
    usage: 'erpsync plan [paths…] [options]',
    about: [
      'Reads the manifests and the account and shows what `erpsync apply` would change.',
      'Across a fleet, each store\'s plan under its account line (deletes first), then one table;',
      'its Markdown (and --comment-dir\'s pull-request comments) starts with the table, then every',
      'removal of every store, then each store\'s plan folded.',
      'A saved plan (--out) records its manifests\' git commit; apply checks them against it.',
    ],
    flags: planFlags,
    footer: ['exit codes: 0 done (or no changes, with --detailed-exitcode), 2 changes present, blocked ones', 'included (--detailed-exitcode), 1 error, 3 refused'],
  },
  {
    name: 'apply',
    summary: 'make the account match the manifests (or a saved plan)',
    usage: 'erpsync apply [manifests… | plan.json | DIR] [options]',
    about: [
      'Applies the manifests to the account (planning first), or exactly a plan saved by',
      '`erpsync plan --out`, which is refused when the records it touches changed since. A folder',
      'saved by a fleet plan applies each store\'s plan to its own account; a stale store is refused',
      'while the others apply. A saved plan carries its own budget, replacements and selection.',
      'Saved plans whose manifests in this checkout changed since they were made are refused whole.',
    ],
    flags: applyFlags,
    footer: [
      'exit codes: 0 applied (or nothing to apply), 1 error, a change failed or did not take, or the',
      'plan holds blocked changes (the rest is applied, each blocked one named), 3 refused: a saved plan',
      'whose account changed (that store alone), saved plans whose manifests changed since they were',
      'made (MANIFESTS_CHANGED, nothing applied), the delete budget, the lock, no confirmation',
    ],
  },
  {
    name: 'drift',
    summary: 'report how the account drifted from the manifests (changes nothing)',
    usage: 'erpsync drift [paths…] [options]',
    about: [
      'Reads the manifests and the account and reports drift: records modified in the ERP, missing',
      'from it, unmanaged (in a managed kind, named by no manifest; each with a snippet to paste),',
      'and changes pending from git. policy.ignore rules are honoured and counted until their `until`',
      'day (ERPSYNC_TODAY fixes the day); an expired rule is named. Nothing is changed.',
      "Across a fleet, every store's report in the format asked (each as one store's), with the table.",
    ],
    flags: driftFlags,
    footer: ['exit codes: 0 no drift, 2 drift, 1 error'],
  },
  {
    name: 'export',
    summary: "write the account's configuration as manifests, one file per kind",
    usage: 'erpsync export [--kinds a,b] [--out DIR] [options]',
    about: [
      'Reads the account and writes its configuration in the manifest language: labels for',
      'enumerations, names for references, ${VAR} placeholders for secrets, defaults and server',
      'fields left out, and none of the records every account has (built-in, fixa, native, the',
      'untouched default chart). `erpsync plan` on the result shows no changes. Nothing is changed.',
    ],
    flags: exportFlags,
  },
  {
    name: 'compare',
    summary: 'compare two stores (or a manifest folder and a store) record by record, field by field',
    usage: 'erpsync compare --target A --target B | --target B PATH… [options]',
    about: [
      'Reads both stores (the first exported in memory as manifests) and prints what differs, record',
      'by record and field by field, with the comparison plan makes: records matched by name (never',
      'by id), fields compared by meaning, the account\'s own records as the account made them left',
      'out. With one --target and manifest paths, the manifests are the left side. Changes nothing.',
    ],
    flags: compareFlags,
    footer: ['exit codes: 0 the same, 2 they differ, 1 error'],
  },
  {
    name: 'import',
    summary: "write a store's differences from a base as its overlay (or propose the base of a fleet)",
    usage: 'erpsync import --target NAME [--base PATH] | --all-targets [--suggest-base DIR --min-share X] [options]',
    about: [
      'Reads the store and writes, as the overlay of its target (the last layer of its `manifests`),',
      'only what it has that the base does not, or has differently: records added, records changed',
      '(whole, as an overlay replaces them), and records of the base it lacks as tombstones',
      '(`ensure: absent`). `plan --target NAME` is empty right after. A value the base feeds from',
      '${VAR} stays that variable when the store holds the variable\'s value; secrets are always',
      'variables. A file whose content would not change is not written. With --suggest-base, proposes',
      'the base most stores share instead and reports the overlay size of every store with it.',
    ],
    flags: importFlags,
  },
  {
    name: 'doctor',
    summary: 'check, read-only, whether the account behaves as erpsync assumes',
    usage: 'erpsync doctor [options]',
    about: [
      'Probes the account with a few read-only requests (GETs only, counted in the output) and checks',
      'each assumption erpsync relies on: the token host, the scope of every kind, each list\'s paging',
      '(limite and pagina honoured), list versus detail fields, the reverse-logistics filter and the',
      'rate-limit answers seen. Says which hold, which differ and what erpsync does about each.',
      'Across a fleet (several --target names or globs, --all-targets), each store in turn.',
    ],
    flags: doctorFlags,
    footer: ['exit codes: 0 every assumption holds, 2 some differ (erpsync copes, as said), 1 one fails', '(a missing scope) or an error'],
  },
  {
    name: 'sandbox',
    summary: 'serve the embedded Bling API emulator on loopback until Ctrl-C',
    usage: 'erpsync sandbox [options]',
    about: ['Serves the embedded Bling API v3 emulator on loopback until Ctrl-C, then saves its state.'],
    flags: sandboxFlags,
  },
  {
    name: 'targets',
    summary: 'list the targets of erpsync.config.yaml; --check names the account each one reaches',
    usage: 'erpsync targets [--check] [--json] [--target PATTERNS] [options]',
    about: [
      'Lists the targets of erpsync.config.yaml (see docs/config.md), each with its concurrency group',
      'when the config declares `concurrency: { groups: N }`; --changed-since REF only those the',
      'changes since a git revision touch, each with why.',
    ],
    flags: targetsFlags,
  },
  {
    name: 'login',
    summary: 'authorize erpsync on a Bling account (OAuth) and store the login; --refresh keeps logins fresh',
    usage: 'erpsync login [--target NAME | --base-url URL] [options]\n       erpsync login --refresh [--target PATTERNS | --all-targets] [--within 2h] [--dry-run] [--json]',
    about: [
      'Authorizes erpsync on a Bling account (OAuth authorization code) and stores the refresh token',
      "in the credentials file (.erpsync/credentials.json, or the target's file), mode 0600, or in the",
      'postgres backend when the config names one (encrypted).',
      "The client secret is read from BLING_CLIENT_SECRET (or the target's clientSecretEnv), never from a flag.",
      '',
      'With --refresh (token upkeep, no browser): refreshes every selected login whose access token',
      'expires within --within, soonest first, within the per-IP token rule (16 token calls a minute',
      'per egress). Run it every hour with the default 2h: each run refreshes about a fifth of a fleet',
      'and a nightly fleet starts with valid tokens. Another runner refreshing the same login at once',
      'is waited for and its tokens kept.',
    ],
    flags: loginFlags,
    footer: ['exit codes (--refresh): 0 every due login refreshed, 1 one failed or a login is missing'],
  },
  {
    name: 'backend',
    summary: 'operate the state backend: migrate its schema, show its status, import local state',
    usage: 'erpsync backend migrate | status | import [options]',
    about: [
      'Operates the backend that keeps what outlives a run (leases, logins, the IP budget, the journal,',
      'drift results): `local` files by default, or a PostgreSQL server named in erpsync.config.yaml',
      '(`backend: { postgres: { urlEnv: ERPSYNC_DATABASE_URL, keyEnv: ERPSYNC_STATE_KEY } }`) or by',
      'ERPSYNC_BACKEND=postgres. `migrate` brings the schema to this version (safe when runners start at',
      'once; every run also does it first), `status` says what the backend holds, `import` moves this',
      "repository's logins and journal into it (run twice, it duplicates nothing).",
    ],
    flags: backendFlags,
    footer: ['exit codes: 0 done, 1 error, 3 the backend unreachable, its schema newer than this erpsync, or its key wrong'],
  },
  {
    name: 'history',
    summary: 'list the applies of the journal, or show one run\'s changes',
    usage: 'erpsync history [RUN] [--target NAME] [--json]',
    about: [
      'Every apply appends a run to the journal (.erpsync/journal/, or the target\'s `journal`',
      'folder): when, erpsync version, git revision of the manifests, target, account, who, and',
      'each change with the fields before and after and its outcome. Without RUN, lists the runs',
      '(oldest first); with a RUN id (or a prefix of it), shows its changes. A run without its',
      'closing line was killed midway and shows as interrupted. An outcome left unknown (an answer',
      'lost, a kill) is settled first by reading the run\'s account, and journaled. Every line is',
      'checked (schema, hash chain, the run index): a damaged run is listed with what is wrong and',
      'refused when named. `erpsync plan --revert RUN` undoes one.',
    ],
    footer: ['exit codes: 0 done, 1 error, 3 the run named fails the journal\'s checks'],
    flags: historyFlags,
  },
  {
    name: 'report',
    summary: 'write the fleet dashboard: one static HTML page from the journal and drift results',
    usage: 'erpsync report --html FILE [--drift PATH]… [--days N] [options]',
    about: [
      'Writes one self-contained HTML file (no server, works offline) from the journal and the drift',
      'results the state store keeps (every runner\'s, with a shared backend), and from --drift files:',
      'every store with its last apply, its drift status and a timeline; a store opens to what its',
      'latest drift found (records, fields, who changed them) and its last runs (commit, actor, changes).',
    ],
    flags: reportFlags,
  },
  {
    name: 'completion',
    summary: 'print a shell completion script: erpsync completion bash|zsh|fish',
    usage: 'erpsync completion bash|zsh|fish',
    about: [
      'Prints a shell completion script: commands, their flags, kinds after --only/--exclude.',
      '',
      '  bash: eval "$(erpsync completion bash)"   (e.g. in ~/.bashrc)',
      '  zsh:  eval "$(erpsync completion zsh)"    (e.g. in ~/.zshrc, after compinit)',
      '  fish: erpsync completion fish | source     (or save it in ~/.config/fish/completions/erpsync.fish)',
    ],
    flags: completionFlags,
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return commandSpecs.find((c) => c.name === name);
}

/** A command's --help, from its spec and the flag table. */
export function renderHelp(name: CommandName): string {
  const spec = commandSpecs.find((c) => c.name === name);
  if (!spec) return '';
  return [`usage: ${spec.usage}`, '', ...spec.about, '', 'options:', ...renderFlagLines(name, spec.flags), ...(spec.footer ? ['', ...spec.footer] : [])].join('\n');
}
