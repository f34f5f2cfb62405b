// The JSON Schema of one line of the journal (model/journal), published as
// schemas/journal-line.schema.json so that anyone may check a journal with their own tools, and
// compiled at build time into the validator every line is checked with when it is read back
// (state/journal-evidence). What the types of model/journal gain must be added here too: the
// journal tests write lines of every type and read them back through this schema.
//
// Known fields must have their types; fields it does not know are let through, so a journal that
// a newer erpsync wrote (its run line may name more) is still read. A line's place in its run —
// first line a run line, an outcome after its intent, the hash of the line before — is checked
// beside the schema, where the line's neighbours are known.
import { kindKeys, nestedUnitKinds } from './kinds.js';
import { changeActions, changeReasons } from './plan.js';

export const journalLineSchemaFileName = 'journal-line.schema.json';

const text = { type: 'string' };
const instant = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$', description: 'An ISO 8601 time in UTC.' };
const count = { type: 'integer', minimum: 0 };
const recordId = { type: 'integer' };
const unitKind = { enum: [...kindKeys, ...nestedUnitKinds] };
const prev = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'sha256 (hex) of the line before this one in its run, as stored; absent on the run line.' };

/** A git revision and whether the work tree had uncommitted changes; null outside git. */
const revision = { type: ['object', 'null'], required: ['revision', 'dirty'], properties: { revision: text, dirty: { type: 'boolean' } } };

const record = {
  type: 'object',
  required: ['id', 'identity', 'name', 'fields'],
  properties: { id: recordId, identity: text, name: text, parent: text, fields: { type: 'object' } },
};

/** What a change is: the fields of an intent line, and of a format-1 change line. */
const description = {
  at: instant,
  change: { ...text, description: "The change's id in the plan." },
  action: { enum: [...changeActions] },
  reason: { enum: [...changeReasons] },
  kind: unitKind,
  key: { ...text, description: 'Identity of the record: its name, or the path of names (`A > B`) in tree kinds.' },
  liveId: recordId,
  fields: {
    type: 'array',
    description: 'Field by field, as planned; a sensitive field without its values.',
    items: { type: 'object', required: ['path'], properties: { path: text, before: {}, after: {}, sensitive: { type: 'boolean' } } },
  },
  before: { ...record, description: 'The record as read before the run (absent for a create).' },
  written: { type: 'object', description: 'The record as the change declares it (absent for removals).' },
  prev,
};
const describedBy = ['type', 'at', 'change', 'action', 'reason', 'kind', 'key', 'fields'];

const lineTypes = [
  {
    type: 'object',
    description: "A run's first line: what ran, where, from which revision, by whom.",
    required: ['type', 'formatVersion', 'run', 'startedAt', 'erpsyncVersion', 'source', 'git', 'target', 'account', 'actor', 'changes'],
    properties: {
      type: { const: 'run' },
      formatVersion: { enum: [1, 2] },
      run: { type: 'string', pattern: '^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$' },
      startedAt: instant,
      erpsyncVersion: text,
      source: { enum: ['manifests', 'saved-plan'] },
      git: revision,
      planGit: revision,
      template: text,
      fleet: text,
      target: { type: 'object', required: ['name', 'id', 'mode'], properties: { name: text, id: text, mode: { enum: ['sandbox', 'remote'] } } },
      account: { type: 'object', required: ['id', 'nome', 'cnpj'], properties: { id: text, nome: text, cnpj: text } },
      actor: { type: 'object', required: ['type'], properties: { type: { enum: ['ci', 'user'] }, url: text, user: text, host: text } },
      changes: count,
    },
  },
  {
    type: 'object',
    description: 'A change about to be sent: written and flushed before its request leaves.',
    required: describedBy,
    properties: { ...description, type: { const: 'intent' } },
  },
  {
    type: 'object',
    description: 'What came of a change whose intent came before.',
    required: ['type', 'at', 'change', 'outcome'],
    properties: {
      type: { const: 'outcome' },
      at: instant,
      change: text,
      outcome: { enum: ['applied', 'failed', 'skipped', 'unknown'] },
      id: recordId,
      detail: text,
      prev,
    },
  },
  {
    type: 'object',
    description: 'A record read again after the writes, as the account kept it.',
    required: ['type', 'at', 'change', 'record'],
    properties: { type: { const: 'read-back' }, at: instant, change: text, record, prev },
  },
  {
    type: 'object',
    description: "A run's closing line.",
    required: ['type', 'at', 'applied', 'failed', 'skipped', 'interrupted', 'notConverged'],
    properties: {
      type: { const: 'end' },
      at: instant,
      applied: count,
      failed: count,
      skipped: count,
      interrupted: { type: 'boolean' },
      notConverged: { type: 'array', items: text },
      notKept: { type: 'array', items: text, description: 'The changes whose write the read-back found not kept.' },
      prev,
    },
  },
  {
    type: 'object',
    description: 'An unknown outcome settled later by reading the account.',
    required: ['type', 'at', 'change', 'outcome', 'detail'],
    properties: { type: { const: 'resolution' }, at: instant, change: text, outcome: { enum: ['applied', 'not-applied'] }, id: recordId, detail: text, prev },
  },
  {
    type: 'object',
    description: 'Format 1: a change and its outcome, after its write.',
    required: [...describedBy, 'outcome'],
    properties: { ...description, type: { const: 'change' }, outcome: { enum: ['applied', 'failed', 'skipped', 'unknown'] }, id: recordId, detail: text },
  },
  {
    type: 'object',
    description: 'Format 1: a change started.',
    required: ['type', 'at', 'change'],
    properties: { type: { const: 'start' }, at: instant, change: text, prev },
  },
];

export const journalLineSchema: Record<string, unknown> = {
  title: 'erpsync journal line',
  description: 'One line of a run of the erpsync journal (`.erpsync/journal/RUN.jsonl`): a JSON object whose `type` says which.',
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  discriminator: { propertyName: 'type' },
  oneOf: lineTypes,
};
