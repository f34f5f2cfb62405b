// Opens the state store a run's backend choice names (api/targets decides the choice once, from
// the config's `backend:` and its env twins): `local` needs nothing and touches no file until a
// sub-store is used; `postgres` connects, brings the schema up to date (refusing a newer one)
// and only then returns, so an unreachable database stops a run before its first request to the
// service. The logins' key is read when a login is first used: a run with a static token needs none.
import { hostname } from 'node:os';
import type { BackendChoice } from '../api/index.js';
import { localDriftResults } from './local/drift-results.js';
import { localIpBudget } from './local/ip-budget.js';
import { localJournal } from './local/journal.js';
import { localLeases } from './local/leases.js';
import { localLogins } from './local/logins.js';
import { localQuota } from './local/quota.js';
import { localReadBack } from './local/read-back.js';
import { sealingKeyFrom } from './crypto.js';
import { connectPostgres } from './postgres/connect.js';
import { postgresDriftResults } from './postgres/drift-results.js';
import { postgresIpBudget } from './postgres/ip-budget.js';
import { postgresJournal } from './postgres/journal.js';
import { postgresLeases } from './postgres/leases.js';
import { postgresLogins } from './postgres/logins.js';
import { postgresQuota } from './postgres/quota.js';
import { postgresReadBack } from './postgres/read-back.js';
import type { LoginStore, StateStore } from './state-store.js';

export interface StateContext {
  /** The working folder: the local backend's `.erpsync/` is beside it. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Which runner this is, for the journal and drift results of a shared backend: the CI job when
 * there is one (GitHub Actions, GitLab CI), else the host.
 */
export function runnerOf(env: NodeJS.ProcessEnv): string {
  if (env.GITHUB_RUN_ID) return `github ${env.GITHUB_REPOSITORY ?? ''} run ${env.GITHUB_RUN_ID}${env.GITHUB_JOB ? ` job ${env.GITHUB_JOB}` : ''}`.replace(/ {2,}/g, ' ');
  if (env.CI_JOB_ID) return `gitlab ${env.CI_PROJECT_PATH ?? ''} job ${env.CI_JOB_ID}`.replace(/ {2,}/g, ' ');
  return `host ${hostname()}`;
}

export async function openStateStore(choice: BackendChoice, context: StateContext): Promise<StateStore> {
  if (choice.kind === 'local') return openLocalStore(context);
  const connection = await connectPostgres(choice, context.env);
  const runner = runnerOf(context.env);
  let logins: LoginStore | undefined;
  return {
    backend: 'postgres',
    location: `the postgres backend at ${connection.where} (schema ${choice.schema})`,
    leases: postgresLeases(connection),
    get logins() {
      logins ??= postgresLogins(connection, sealingKeyFrom(context.env, choice.keyEnv));
      return logins;
    },
    ipBudget: postgresIpBudget(connection, { runner }),
    journal: postgresJournal(connection, localJournal(), { runner }),
    driftResults: postgresDriftResults(connection, { runner }),
    readBack: postgresReadBack(connection),
    quota: postgresQuota(connection),
    close: () => connection.close(),
  };
}

function openLocalStore(context: StateContext): StateStore {
  return {
    backend: 'local',
    location: 'local files (.erpsync/ beside the run, and a per-user folder)',
    leases: localLeases(context),
    logins: localLogins(),
    ipBudget: localIpBudget(context),
    journal: localJournal(),
    driftResults: localDriftResults(context),
    readBack: localReadBack(context),
    quota: localQuota(),
    close: async () => undefined,
  };
}
