// vitest's global setup: the tests' PostgreSQL. A server named by ERPSYNC_TEST_DATABASE_URL is
// used as it is (.ci/run starts one); otherwise a throwaway cluster is started for this run from
// the installed server (scripts/test-postgres.mjs) and stopped after it. Without either, the tests
// that need a server fail naming the reason; none is skipped.
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain ES module script, typed by its use here
import { startTestPostgres, stopTestPostgres } from '../../scripts/test-postgres.mjs';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.ERPSYNC_TEST_DATABASE_URL) {
    project.provide('databaseUrl', process.env.ERPSYNC_TEST_DATABASE_URL);
    return async () => undefined;
  }
  let started: { url: string; dir: string } | undefined;
  try {
    started = (await startTestPostgres()) as { url: string; dir: string };
    project.provide('databaseUrl', started.url);
  } catch (error) {
    project.provide('databaseUrl', `unavailable: ${error instanceof Error ? error.message : String(error)}`);
  }
  return async () => {
    if (started) await stopTestPostgres(started.dir);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
