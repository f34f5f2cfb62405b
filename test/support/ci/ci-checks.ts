// What the loop tests look at beside the forge: the stores' accounts, their journals in the
// backend, and the secret's values (which no log or forge post may hold).
import { parseEnv } from 'node:util';
import type { Emulator } from '../../../src/emulator/index.js';
import type { CiFleet } from './ci-fleet.js';

const storeOf = (fleet: CiFleet, i: number) => {
  const store = fleet.stores[i - 1];
  if (!store) throw new Error(`the fleet has no store ${i}`);
  return store;
};

/** Store i's product groups, by name. */
export function groupsOf(fleet: CiFleet, i: number): Promise<string[]> {
  return storeOf(fleet, i).open((emulator: Emulator) => emulator.snapshot().gruposProdutos.map((g) => g.nome).sort());
}

/** A hand edit in store i's ERP: the product group `name` deleted through the API. */
export async function deleteGroup(fleet: CiFleet, i: number, name: string): Promise<void> {
  await storeOf(fleet, i).open(async (emulator: Emulator) => {
    const group = emulator.snapshot().gruposProdutos.find((g) => g.nome === name);
    const response = await fetch(`${emulator.baseUrl}/grupos-produtos/${String(group?.id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${emulator.token}` } });
    if (response.status >= 300) throw new Error(`could not delete ${name} in store ${i}: ${response.status}`);
  });
}

export interface HistoryRun {
  git: { revision: string; dirty: boolean } | null;
  planGit?: { revision: string } | null;
  actor: { type: string; user?: string; url?: string };
}

/** Store i's journal runs as the backend holds them (every runner's), oldest first. */
export async function historyOf(fleet: CiFleet, i: number): Promise<HistoryRun[]> {
  const run = await fleet.cli(['history', '--target', storeOf(fleet, i).name, '--json']);
  if (run.code !== 0) throw new Error(`erpsync history failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { runs: HistoryRun[] }).runs;
}

/** Each value of the repository's secrets (the .env lines of ERPSYNC_STATE). */
export function secretValues(secrets: Record<string, string>): string[] {
  return Object.values(secrets).flatMap((secret) => Object.values(parseEnv(secret)).filter((value): value is string => value !== undefined));
}
