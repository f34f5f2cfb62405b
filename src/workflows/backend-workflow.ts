// `erpsync backend`: operating the state store's backend — bring its schema up to date, say what
// it holds, and move a repository's local state (logins, journal) into it. Prints nothing; the
// command renders what these return.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_BASE_URL, DEFAULT_CREDENTIALS_FILE, defaultTargetCredentialsFile, issuedBaseUrl, normalizeBaseUrl, readCredentialsFile } from '../api/index.js';
import type { BackendChoice, TargetsConfig } from '../api/index.js';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import { sealingKeyFrom } from '../state/crypto.js';
import { runnerOf } from '../state/open-state.js';
import type { LocalStateImport } from '../state/postgres/import-local.js';
import { importLocalState } from '../state/postgres/import-local.js';
import { postgresLogins } from '../state/postgres/logins.js';
import type { LoginRef, LoginStore } from '../state/state-store.js';
import { journalLocationsOf } from './journal-reader.js';
import { connectPostgres } from '../state/postgres/connect.js';
import type { PostgresConnection } from '../state/postgres/connect.js';
import { migrate, readSchemaVersion, schemaVersion } from '../state/postgres/migrations.js';
import type { BackendStatus } from '../state/postgres/status.js';
import { readBackendStatus } from '../state/postgres/status.js';
import type { RunIO } from '../model/run-io.js';

export interface MigrateOutcome {
  where: string;
  schema: string;
  applied: number[];
  version: number;
}

export type StatusOutcome = BackendStatus | { backend: 'local'; where: string };

function requirePostgres(choice: BackendChoice, what: string): Extract<BackendChoice, { kind: 'postgres' }> {
  if (choice.kind === 'postgres') return choice;
  throw new ErpsyncError('USAGE', `${what} is for the postgres backend; this run's backend is local`, {
    details: ['name it in erpsync.config.yaml (`backend: { postgres: { urlEnv: ERPSYNC_DATABASE_URL } }`) or set ERPSYNC_BACKEND=postgres'],
  });
}

async function withConnection<T>(choice: Extract<BackendChoice, { kind: 'postgres' }>, io: Pick<RunIO, 'env'>, work: (connection: PostgresConnection) => Promise<T>): Promise<T> {
  const connection = await connectPostgres(choice, io.env, { migrate: false });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

export function migrateBackend(choice: BackendChoice, io: Pick<RunIO, 'env'>): Promise<MigrateOutcome> {
  const postgres = requirePostgres(choice, '`erpsync backend migrate`');
  return withConnection(postgres, io, async (connection) => {
    const applied = await migrate(connection);
    return { where: connection.where, schema: postgres.schema, applied, version: await readSchemaVersion(connection) };
  });
}

export async function backendStatus(choice: BackendChoice, io: Pick<RunIO, 'env' | 'cwd'>): Promise<StatusOutcome> {
  if (choice.kind === 'local') return { backend: 'local', where: `files under ${io.cwd}/.erpsync and a per-user folder` };
  return withConnection(choice, io, (connection) => readBackendStatus(connection));
}

/** Whether the database's schema is the one this erpsync writes (status says what to do when not). */
export function schemaAdvice(status: BackendStatus): string | undefined {
  if (status.schemaVersion === schemaVersion) return undefined;
  if (status.schemaVersion === 0) return 'erpsync has not made its tables here yet: `erpsync backend migrate` makes them (any run also does it first)';
  if (status.schemaVersion > schemaVersion) return `the schema is newer (${status.schemaVersion}) than this erpsync (${schemaVersion}): upgrade erpsync`;
  return `the schema is at version ${status.schemaVersion}, this erpsync writes ${schemaVersion}: run \`erpsync backend migrate\` (any run also does it first)`;
}

export interface ImportOutcome extends LocalStateImport {
  where: string;
  /** Logins written to the backend, and those kept because the backend's was as new or newer. */
  logins: { imported: string[]; kept: string[] };
}

/**
 * Moves this repository's local state into the postgres backend: the logins of the config's
 * targets (and the default one), the journal's runs and the read-back memory. Run twice, it
 * duplicates nothing; a login is written only where the backend has none or an older one — a
 * refresh token the backend rotated since must never be replaced by the spent one in a file.
 */
export function importIntoBackend(choice: BackendChoice, config: TargetsConfig | undefined, io: Pick<RunIO, 'env' | 'cwd'>): Promise<ImportOutcome> {
  const postgres = requirePostgres(choice, '`erpsync backend import`');
  return withConnection(postgres, io, async (connection) => {
    await migrate(connection);
    const logins = await importLogins(postgresLogins(connection, sealingKeyFrom(io.env, postgres.keyEnv)), localLoginRefs(config, io.cwd));
    const imported = await importLocalState(connection, { journals: journalLocationsOf(config, io.cwd), cwd: io.cwd }, { runner: runnerOf(io.env) });
    return { where: connection.where, ...imported, logins };
  });
}

/** The credentials files this repository's targets use, where they exist. */
function localLoginRefs(config: TargetsConfig | undefined, cwd: string): LoginRef[] {
  const refs: LoginRef[] = [];
  for (const [name, entry] of Object.entries(config?.targets ?? {})) {
    if (entry.sandbox || entry.credentials?.tokenEnv !== undefined) continue;
    const file = resolve(config?.dir ?? cwd, entry.credentials?.file ?? defaultTargetCredentialsFile(name));
    if (existsSync(file)) refs.push({ target: name, baseUrl: normalizeBaseUrl(entry.baseUrl ?? DEFAULT_BASE_URL), file });
  }
  const defaultFile = resolve(cwd, DEFAULT_CREDENTIALS_FILE);
  if (existsSync(defaultFile)) refs.push({ target: 'default', baseUrl: '', file: defaultFile });
  return refs;
}

async function importLogins(logins: LoginStore, refs: readonly LoginRef[]): Promise<ImportOutcome['logins']> {
  const outcome: ImportOutcome['logins'] = { imported: [], kept: [] };
  for (const ref of refs) {
    const local = await readCredentialsFile(ref.file);
    // The default login belongs to the base URL it was issued for.
    const where: LoginRef = ref.baseUrl === '' ? { ...ref, baseUrl: issuedBaseUrl(local) ?? DEFAULT_BASE_URL } : ref;
    const stored = await logins
      .slot(where)
      .read()
      .catch((error: unknown) => {
        if (isErpsyncError(error) && error.code === 'AUTH_MISSING') return undefined;
        throw error;
      });
    const label = `${where.target} (${where.baseUrl})`;
    if (stored !== undefined && Date.parse(stored.updatedAt) >= Date.parse(local.updatedAt)) {
      outcome.kept.push(label);
      continue;
    }
    await logins.write(where, local);
    outcome.imported.push(label);
  }
  return outcome;
}
