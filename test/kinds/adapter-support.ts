// Test support for the kind adapters: a fresh emulator and an unpaced client that close after
// each test, and builders for the desired units, read scopes, changes and write contexts the
// planner and apply engine would hand an adapter. Real HTTP on 127.0.0.1 only.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createApiClient, createStaticTokenProvider } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/index.js';
import { createEmulator } from '../../src/emulator/index.js';
import type { Emulator, EmulatorState } from '../../src/emulator/index.js';
import type { DesiredUnit } from '../../src/model/desired.js';
import type { KindAdapter, ReadScope, WriteContext } from '../../src/kinds/kind.js';
import type { LiveRecord } from '../../src/model/live.js';
import { classifyRemoval } from '../../src/model/plan.js';
import type { Change } from '../../src/model/plan.js';
import type { UnitKind } from '../../src/model/kinds.js';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface Account {
  emulator: Emulator;
  client: ApiClient;
}

export async function openAccount(seed: 'fresh' | 'empty' | string = 'fresh'): Promise<Account> {
  const emulator = await createEmulator({ seed, rateLimit: 0 });
  cleanups.push(() => emulator.close());
  const client = createApiClient({ baseUrl: emulator.baseUrl, credentials: createStaticTokenProvider(emulator.token), rate: Infinity });
  cleanups.push(() => client.close());
  return { emulator, client };
}

/** An account seeded with the fresh state as `edit` changes it (records the API cannot produce). */
export async function openEditedAccount(edit: (state: EmulatorState) => void): Promise<Account> {
  const template = await createEmulator({ seed: 'fresh', rateLimit: 0 });
  const state = template.snapshot();
  await template.close();
  edit(state);
  const dir = await mkdtemp(join(tmpdir(), 'erpsync-kinds-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify(state));
  return openAccount(seed);
}

export interface UnitOptions {
  tool?: Partial<DesiredUnit['tool']>;
  parent?: string;
}

/** A desired unit as the planner sees it; `name` is the last segment of the identity. */
export function desiredUnit(kind: UnitKind, identity: string, fields: Record<string, unknown>, options: UnitOptions = {}): DesiredUnit {
  const name = identity.split(' > ').at(-1) ?? identity;
  return {
    kind,
    identity,
    name,
    fields,
    tool: { ensure: 'present', protect: false, previousNames: [], ...options.tool },
    ...(options.parent ? { parent: options.parent } : {}),
    locate: () => ({ file: 'manifest.yaml', line: 1, col: 1 }),
  };
}

export function readScope(desired: readonly DesiredUnit[] = [], all = false): ReadScope {
  return { desired, all, earlier: new Map() };
}

/** Reads a kind and indexes its records by identity. */
export async function readByIdentity(adapter: KindAdapter, client: ApiClient, scope: ReadScope = readScope()): Promise<Map<string, LiveRecord>> {
  const records = await adapter.readLive(client, scope);
  return new Map(records.map((r) => [r.identity, r]));
}

/** A change as buildPlan would emit it (wave 1, no dependencies). */
export function planned(kind: UnitKind, action: Change['action'], key: string, extra: Partial<Change> = {}): Change {
  return { id: `${kind}:${key}:${action}`, action, kind, key, reason: 'drift', removal: classifyRemoval(action, extra.reason ?? 'drift'), fields: [], dependsOn: [], requires: [], wave: 1, ...extra };
}

/** The context applyPlan passes: ids of the records read (and created so far) by kind and identity. */
export function writeContext(client: ApiClient, records: readonly LiveRecord[], live?: LiveRecord, created: Record<string, number> = {}): WriteContext {
  const ids = new Map<string, number>([...records.map((r) => [`${r.kind}:${r.identity}`, r.id] as const), ...Object.entries(created)]);
  return { client, resolveId: (kind, identity) => ids.get(`${kind}:${identity}`), ...(live ? { live } : {}) };
}

export function requireRecord(records: ReadonlyMap<string, LiveRecord>, identity: string): LiveRecord {
  const record = records.get(identity);
  if (!record) throw new Error(`no live record ${identity}; have ${[...records.keys()].join(', ')}`);
  return record;
}
