// The JSON Schemas of drift's machine outputs, published in schemas/: one store's report
// (`drift --json`, drift.schema.json), a fleet's (`drift --all-targets --json`,
// drift-fleet.schema.json: the table's rows and every store's report) and the notifications of
// `drift --notify FILE` (drift-notify.schema.json), which a CI job posts as issues or chat
// messages. They describe model/drift.ts and report/drift-notify.ts: whatever those gain must be
// added here too (test/drift/fleet-drift.test.ts validates real output, and the schemas refuse
// unknown keys, so a forgotten field fails the suite). Each file stands alone (no $ref across files).
import { exitCodes } from './errors.js';
import { kindKeys, nestedUnitKinds } from './kinds.js';
import { findingTypes } from './drift.js';

export const driftSchemaFileName = 'drift.schema.json';
export const driftFleetSchemaFileName = 'drift-fleet.schema.json';
export const driftNotifySchemaFileName = 'drift-notify.schema.json';

const unitKind = { enum: [...kindKeys, ...nestedUnitKinds] };
const text = { type: 'string' };
const count = { type: 'integer', minimum: 0 };
const strings = { type: 'array', items: text };
const exitCode = { enum: Object.values(exitCodes) };

const account = { type: 'object', additionalProperties: false, required: ['id', 'nome', 'cnpj'], properties: { id: text, nome: text, cnpj: text } };

const attribution = {
  type: 'object',
  description: 'Who made the value the account holds, from the journal: `erpsync` (the last run that touched the record wrote it), `erp` (changed in the ERP since that run), `never-applied` (no run touched it).',
  additionalProperties: false,
  required: ['by'],
  properties: { by: { enum: ['erpsync', 'erp', 'never-applied'] }, run: { ...text, description: 'The last run that touched the record.' }, at: { ...text, description: 'When that run started.' } },
};

const finding = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'kind', 'key', 'fields', 'actions'],
  properties: {
    type: { enum: [...findingTypes] },
    kind: unitKind,
    key: { ...text, description: 'Identity of the record: its name, or the path of names (`A > B`).' },
    liveId: { type: 'integer' },
    fields: {
      type: 'array',
      description: 'Field by field, for modified and pending records: what the manifests declare and what the account holds. A sensitive field shows neither.',
      items: { type: 'object', additionalProperties: false, required: ['path'], properties: { path: text, manifest: {}, account: {}, sensitive: { type: 'boolean' } } },
    },
    actions: { type: 'array', items: { enum: ['create', 'update', 'set-status', 'set-default', 'delete', 'retire', 'blocked'] } },
    note: text,
    snippet: { ...text, description: 'Unmanaged records: YAML in the manifest language, ready to paste.' },
    attribution,
  },
};

const driftReportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['formatVersion', 'target', 'manifestDigest', 'pendingBasis', 'kinds', 'includeBuiltin', 'summary', 'findings', 'managed', 'ignored', 'reads', 'warnings'],
  properties: {
    formatVersion: { const: 1 },
    target: { type: 'object', additionalProperties: false, required: ['mode', 'id', 'name', 'account'], properties: { mode: { enum: ['sandbox', 'remote'] }, id: text, name: text, account } },
    manifestDigest: text,
    pendingBasis: { enum: ['manifest-intent', 'baseline'] },
    baseline: { type: 'object', additionalProperties: false, required: ['ref', 'digest'], properties: { ref: text, digest: text } },
    kinds: { type: 'array', items: unitKind },
    includeBuiltin: { type: 'boolean' },
    summary: {
      type: 'object',
      additionalProperties: false,
      required: ['managed', 'inSync', 'modified', 'missing', 'unmanaged', 'pending', 'ignored', 'accountOwn'],
      properties: { managed: count, inSync: count, modified: count, missing: count, unmanaged: count, pending: count, ignored: count, accountOwn: count },
    },
    findings: { type: 'array', items: finding },
    managed: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'key', 'ensure', 'status'],
        properties: { kind: unitKind, key: text, liveId: { type: 'integer' }, ensure: { enum: ['present', 'absent'] }, status: { enum: ['in-sync', 'drifted', 'ignored'] }, ignoredBecause: text },
      },
    },
    ignored: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['rule', 'count'],
        properties: {
          rule: { type: 'object', additionalProperties: false, required: ['kind', 'reason'], properties: { kind: { enum: [...kindKeys] }, key: text, field: text, reason: text, until: text } },
          count,
        },
      },
    },
    reads: count,
    warnings: strings,
  },
};

export const driftSchema: Record<string, unknown> = {
  title: 'erpsync drift report (drift --json)',
  description: "One store's drift: each record the account holds differently from the manifests (modified, missing, pending from git, unmanaged), field by field, with who made the account's value.",
  ...driftReportSchema,
};

export const driftFleetSchema: Record<string, unknown> = {
  title: 'erpsync fleet drift (drift --all-targets --json)',
  description: "A fleet's drift: the table's rows (one per store) and every store's report, as that store alone reports it, or why it has none.",
  type: 'object',
  additionalProperties: false,
  required: ['formatVersion', 'command', 'rows', 'exitCode', 'seconds', 'stores'],
  properties: {
    formatVersion: { const: 1 },
    command: { const: 'drift' },
    rows: {
      type: 'array',
      items: {
        // Open to new columns: the table's figures are for people; a pipeline reads `stores`.
        type: 'object',
        required: ['target', 'changes', 'exitCode', 'seconds'],
        properties: { target: text, account, changes: { ...count, description: 'Drifted records.' }, error: text, exitCode, seconds: { type: 'number', minimum: 0 } },
      },
    },
    exitCode,
    seconds: { type: 'number', minimum: 0 },
    stores: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['target', 'owners', 'exitCode'],
        properties: {
          target: text,
          account,
          owners: { ...strings, description: "The store's owners from the config (its own `owners`, then its groups')." },
          report: { $ref: '#/$defs/report' },
          error: { ...text, description: 'Why the store has no report: its manifests had errors, or its account could not be read.' },
          exitCode,
        },
      },
    },
  },
  $defs: { report: driftReportSchema },
};

const notification = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'action', 'target', 'owners', 'assignees', 'title', 'body', 'labels', 'text'],
  properties: {
    key: { type: 'string', pattern: '^erpsync-drift/', description: "Stable per store: the job finds the store's issue by it (the body's first line carries it as `<!-- erpsync-drift key=… -->`)." },
    action: {
      enum: ['open', 'close', 'error'],
      description: '`open`: the store drifted: open an issue with this key, or update the open one. `close`: in sync: close the open issue with this key, if any. `error`: the store could not be checked: close nothing.',
    },
    target: text,
    owners: { ...strings, description: 'As the config names them: logins, teams (`@org/team`), e-mail addresses.' },
    assignees: { ...strings, description: 'The owners an issue can be assigned to: user logins without `@`.' },
    title: { ...text, description: "erpsync's words, the target's name and counts: nothing from the account." },
    body: { type: 'string', maxLength: 65000, description: "Markdown: the store's drifted records, their fields and who changed them (open), or why it closes or could not be checked; every name and value escaped." },
    labels: strings,
    text: { ...text, description: 'One plain line for a chat webhook.' },
    counts: {
      type: 'object',
      additionalProperties: false,
      required: ['records', 'modified', 'missing', 'pending', 'unmanaged'],
      properties: { records: count, modified: count, missing: count, pending: count, unmanaged: count },
    },
  },
};

export const driftNotifySchema: Record<string, unknown> = {
  title: 'erpsync drift notifications (drift --notify FILE)',
  description: 'One notification per store of a drift run, for a CI job to post as an issue (opened, updated, closed by its key) or a chat message.',
  type: 'object',
  additionalProperties: false,
  required: ['formatVersion', 'kind', 'at', 'notifications'],
  properties: {
    formatVersion: { const: 1 },
    kind: { const: 'erpsync-drift-notifications' },
    at: { ...text, description: 'When the drift was checked (ISO 8601).' },
    notifications: { type: 'array', items: notification },
  },
};
