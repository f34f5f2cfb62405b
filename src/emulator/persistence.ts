// Reading and writing the sandbox state file. Writes are atomic (temp file in the same directory,
// then rename) so a crash never leaves half a file; a missing file means "start from the seed".
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ErpsyncError } from '../model/errors.js';
import type { PersistedAuth } from './auth.js';
import type { EmulatorState } from './state.js';

export interface StateFile {
  formatVersion: 1;
  state: EmulatorState;
  auth: PersistedAuth;
}

const stateKeys: readonly (keyof EmulatorState)[] = [
  'formasPagamentos',
  'categoriasReceitasDespesas',
  'categoriasProdutos',
  'gruposProdutos',
  'modulos',
  'situacoes',
  'transicoes',
  'logisticas',
  'servicosLogisticas',
  'emUso',
];

/** Accepts a state file or a bare state object (a hand-written seed). */
export function parseStateDocument(text: string, path: string): StateFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ErpsyncError('STATE_FILE', `sandbox state ${path} is not valid JSON`, { cause: error });
  }
  const doc = parsed as Partial<StateFile> & Partial<EmulatorState>;
  const state = (doc.state ?? doc) as EmulatorState;
  const problems = checkState(state);
  if (problems.length > 0) {
    throw new ErpsyncError('STATE_FILE', `sandbox state ${path} is not an erpsync sandbox state`, { details: problems });
  }
  return { formatVersion: 1, state, auth: doc.state ? (doc.auth ?? { access: [], refresh: [] }) : { access: [], refresh: [] } };
}

function checkState(state: EmulatorState): string[] {
  if (typeof state !== 'object' || state === null) return ['expected a JSON object'];
  const problems: string[] = [];
  if (state.formatVersion !== 1) problems.push('formatVersion must be 1');
  if (!Number.isSafeInteger(state.nextId)) problems.push('nextId must be an integer');
  for (const key of stateKeys) if (!Array.isArray(state[key])) problems.push(`${key} must be an array`);
  if (typeof state.nfseConfiguracoes !== 'object' || state.nfseConfiguracoes === null) {
    problems.push('nfseConfiguracoes must be an object');
  }
  if (!Number.isSafeInteger(state.idFormaPagamentoFiado)) problems.push('idFormaPagamentoFiado must be an integer');
  return problems;
}

export async function readStateFile(path: string): Promise<StateFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ErpsyncError('STATE_FILE', `cannot read sandbox state ${path}`, { cause: error });
  }
  return parseStateDocument(text, path);
}

let tempCounter = 0;

export async function writeStateFile(path: string, content: StateFile): Promise<void> {
  const dir = dirname(path);
  tempCounter += 1;
  const temp = join(dir, `.${basename(path)}.${process.pid}.${tempCounter}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, `${JSON.stringify(content, null, 1)}\n`, { mode: 0o600 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ErpsyncError('STATE_FILE', `cannot write sandbox state ${path}`, { cause: error });
  }
}
