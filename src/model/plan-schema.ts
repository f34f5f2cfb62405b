// The JSON Schema of a saved plan (`plan --out`, `plan --json`), published as
// schemas/plan.schema.json so pipelines can check plans with a policy engine (conftest/OPA, a
// plain script) before apply. It describes the Plan type of model/plan.ts plus the checksum;
// whatever the type gains must be added here too (the schema test validates every golden plan
// and a targeted one, and refuses unknown keys, so a forgotten field fails the suite).
import { kindKeys, nestedUnitKinds, readOnlyUnitKinds } from './kinds.js';
import { changeActions, changeReasons } from './plan.js';

export const planSchemaFileName = 'plan.schema.json';

const unitKind = { enum: [...kindKeys, ...nestedUnitKinds] };
/** What a change may rely on: a record of any unit kind, read-only ones included (a name it refers to). */
const readKind = { enum: [...kindKeys, ...nestedUnitKinds, ...readOnlyUnitKinds] };
const text = { type: 'string' };
const count = { type: 'integer', minimum: 0 };
const strings = { type: 'array', items: text };

const precondition = {
  oneOf: [
    {
      type: 'object',
      description: 'A live record the change relies on, as it was read (its fingerprint).',
      additionalProperties: false,
      required: ['type', 'role', 'kind', 'id', 'identity', 'fingerprint', 'detail'],
      properties: {
        type: { const: 'record' },
        role: { enum: ['self', 'parent', 'reference'] },
        kind: readKind,
        id: { type: 'integer' },
        identity: text,
        fingerprint: text,
        detail: { type: 'boolean' },
      },
    },
    {
      type: 'object',
      description: 'A create relies on its identity still being free.',
      additionalProperties: false,
      required: ['type', 'kind', 'identity'],
      properties: { type: { const: 'absent' }, kind: readKind, identity: text },
    },
    {
      type: 'object',
      description: 'A removal relies on the records inside the removed one being exactly these.',
      additionalProperties: false,
      required: ['type', 'kind', 'parent', 'childKinds', 'children'],
      properties: {
        type: { const: 'children' },
        kind: readKind,
        parent: text,
        childKinds: { type: 'array', items: unitKind },
        children: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['kind', 'id'], properties: { kind: unitKind, id: { type: 'integer' } } },
        },
      },
    },
    {
      type: 'object',
      description: 'A removal relies on the records of other kinds that name the removed one being exactly these.',
      additionalProperties: false,
      required: ['type', 'kind', 'id', 'identity', 'namedBy', 'referrers'],
      properties: {
        type: { const: 'referrers' },
        kind: unitKind,
        id: { type: 'integer' },
        identity: text,
        namedBy: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['kind', 'path'], properties: { kind: unitKind, path: strings } },
        },
        referrers: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['kind', 'id'], properties: { kind: unitKind, id: { type: 'integer' } } },
        },
      },
    },
  ],
};

const change = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'action', 'kind', 'key', 'reason', 'removal', 'fields', 'dependsOn', 'requires', 'wave'],
  properties: {
    id: { ...text, description: 'Unique within the plan; opaque.' },
    action: { enum: [...changeActions] },
    kind: unitKind,
    key: { ...text, description: 'Identity of the record: its name, or the path of names (`A > B`) in tree kinds.' },
    liveId: { type: 'integer', description: 'Id of the live record; absent for creates.' },
    reason: { enum: [...changeReasons] },
    removal: {
      enum: ['none', 'removal', 'replacement'],
      description: '`removal`: the record leaves the account and counts against the delete budget; `replacement`: the delete half of a delete + create.',
    },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: { path: text, before: {}, after: {}, sensitive: { type: 'boolean' } },
      },
    },
    desired: { type: 'object', description: 'The record after the change, in manifest shape; secret values left out.' },
    secrets: { type: 'object', additionalProperties: text, description: 'Secret field (dot path) → the environment variable it comes from.' },
    dependsOn: { ...strings, description: 'Ids of changes that must succeed first.' },
    requires: { type: 'array', items: precondition },
    wave: { type: 'integer', minimum: 1 },
    note: text,
    verify: { enum: ['answer', 'read-back', 'read-by-id'], description: 'How apply checks the write: its own answer (deletes), a read-back by the kind\'s usual read, or by the record\'s id.' },
    carries: { ...strings, description: 'Ids of changes sent in this change\'s request (services inside their logistics\' create, service batches, bulk deletes of product groups and income/expense categories).' },
    carriedBy: { type: 'string', description: 'The change whose request carries this one; apply sends nothing of its own for it.' },
  },
};

export const planSchema: Record<string, unknown> = {
  title: 'erpsync plan (plan --out, plan --json)',
  description:
    'A plan erpsync made: every change apply would send, with the decisions taken when planning (removal classes, the delete budget, renames, a targeted selection) and a checksum over the rest.',
  type: 'object',
  additionalProperties: false,
  required: ['formatVersion', 'target', 'manifestDigest', 'kinds', 'changes', 'budget', 'renames', 'warnings', 'cost', 'checksum'],
  properties: {
    formatVersion: { const: 2 },
    target: {
      type: 'object',
      additionalProperties: false,
      required: ['mode', 'id', 'name', 'account'],
      properties: {
        mode: { enum: ['sandbox', 'remote'] },
        id: text,
        name: text,
        account: { type: 'object', additionalProperties: false, required: ['id', 'nome', 'cnpj'], properties: { id: text, nome: text, cnpj: text } },
      },
    },
    manifestDigest: text,
    origin: {
      type: 'object',
      description: 'Where a saved plan was made (plan --out): the manifest paths given (empty: the target\'s own), their git commit then (null outside git), or the template store of --from-target. Apply refuses the plan when the checkout\'s manifests no longer have its manifestDigest.',
      additionalProperties: false,
      required: ['manifests', 'git'],
      properties: {
        manifests: strings,
        git: {
          oneOf: [{ type: 'null' }, { type: 'object', additionalProperties: false, required: ['revision', 'dirty'], properties: { revision: text, dirty: { type: 'boolean' } } }],
        },
        template: text,
      },
    },
    kinds: { type: 'array', items: unitKind },
    selection: {
      type: 'object',
      description: 'Present on a targeted (partial) plan: what --only/--exclude selected, and the changes added because selected ones depend on them.',
      additionalProperties: false,
      required: ['only', 'exclude', 'addedDependencies'],
      properties: { only: strings, exclude: strings, addedDependencies: strings },
    },
    changes: { type: 'array', items: change },
    budget: {
      type: 'object',
      additionalProperties: false,
      required: ['limit', 'source', 'removals', 'exceeded'],
      properties: { limit: count, source: { enum: ['flag', 'policy', 'default'] }, removals: count, exceeded: { type: 'boolean' } },
    },
    renames: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['kind', 'liveId', 'from', 'to'], properties: { kind: unitKind, liveId: { type: 'integer' }, from: text, to: text } },
    },
    warnings: strings,
    cost: {
      // Open to new figures: the cost line is informational, and policy checks do not read it.
      type: 'object',
      required: ['reads', 'writes', 'seconds', 'rate'],
      properties: { reads: count, writes: count, verifyReads: count, seconds: { type: 'number', minimum: 0 }, rate: { type: 'number' } },
    },
    checksum: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'sha256 over the rest of the plan (canonical JSON); apply refuses a plan whose checksum does not match.' },
  },
};
