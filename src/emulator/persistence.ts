// Reading and writing the sandbox state file. Writes are atomic and never go through a symbolic
// link (model/write-file-atomically), so a crash never leaves half a file; a missing file means
// "start from the seed".
// The account's secrets (the NFS-e city-hall password) are sealed at rest with a key kept beside
// the state file (`<state>.key`, mode 0600): the state file alone — copied, attached to a bug
// report, reused as a seed — does not give them away. A secret whose key is missing reads as ''.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErpsyncError, isErpsyncError } from '../model/errors.js';
import { makeDirectory, refuseSymbolicLink, writeFileAtomically } from '../model/write-file-atomically.js';
import type { PersistedAuth } from './auth.js';
import { buildSeed } from './seed.js';
import type { EmulatorState } from './state.js';
import { recordLists } from './state.js';

export interface StateFile {
  formatVersion: 1;
  state: EmulatorState;
  auth: PersistedAuth;
}

/** Resources added after a state file was written start as the system made them (the `empty` seed's). */
const addedLater = [
  'depositos',
  'modulosCamposCustomizados',
  'tiposCamposCustomizados',
  'camposCustomizados',
  'categoriasLojas',
  'canaisVenda',
  'naturezasOperacoes',
  'contasContabeis',
  'tiposContatos',
  'contatos',
  'empresa',
] as const satisfies readonly (keyof EmulatorState)[];

function upgradeState(state: EmulatorState): EmulatorState {
  if (typeof state !== 'object' || state === null || addedLater.every((key) => key in state)) return state;
  const system = buildSeed('empty');
  const upgraded: Record<string, unknown> = { ...state };
  for (const key of addedLater) upgraded[key] ??= system[key];
  return upgraded as unknown as EmulatorState;
}

/** Accepts a state file or a bare state object (a hand-written seed); `key` opens sealed secrets. */
export function parseStateDocument(text: string, path: string, key?: Buffer): StateFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ErpsyncError('STATE_FILE', `sandbox state ${path} is not valid JSON`, { cause: error });
  }
  const doc = parsed as Partial<StateFile> & Partial<EmulatorState>;
  const state = upgradeState((doc.state ?? doc) as EmulatorState);
  const problems = checkState(state);
  if (problems.length > 0) {
    throw new ErpsyncError('STATE_FILE', `sandbox state ${path} is not an erpsync sandbox state`, { details: problems });
  }
  return {
    formatVersion: 1,
    state: mapSecrets(state, (value) => unseal(value, key)),
    auth: doc.state ? (doc.auth ?? { access: [], refresh: [] }) : { access: [], refresh: [] },
  };
}

function checkState(state: EmulatorState): string[] {
  if (typeof state !== 'object' || state === null) return ['expected a JSON object'];
  const problems: string[] = [];
  if (state.formatVersion !== 1) problems.push('formatVersion must be 1');
  if (!Number.isSafeInteger(state.nextId)) problems.push('nextId must be an integer');
  for (const key of recordLists) if (!Array.isArray(state[key])) problems.push(`${key} must be an array`);
  if (typeof state.empresa !== 'object' || state.empresa === null) problems.push('empresa must be an object');
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
  return parseStateDocument(text, path, await readKey(path));
}

export async function writeStateFile(path: string, content: StateFile): Promise<void> {
  try {
    await makeDirectory(dirname(path));
    // The key is written only once a secret is set, in the middle of a request: a link in its
    // place is refused here, on every save (the first one when the sandbox starts), instead.
    await refuseSymbolicLink(keyFileOf(path));
    let state = content.state;
    if (secretOf(state)) {
      const key = await readOrCreateKey(path);
      state = mapSecrets(state, (value) => seal(value, key));
    }
    await writeFileAtomically(path, `${JSON.stringify({ ...content, state }, null, 1)}\n`, { mode: 0o600 });
  } catch (error) {
    if (isErpsyncError(error)) throw error;
    throw new ErpsyncError('STATE_FILE', `cannot write sandbox state ${path}`, { cause: error });
  }
}

const sealedPrefix = 'sealed:v1:';
const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

function secretOf(state: EmulatorState): string | undefined {
  const senha = state.nfseConfiguracoes?.adicionais?.cadastroPrefeitura?.senha;
  return typeof senha === 'string' && senha !== '' ? senha : undefined;
}

function mapSecrets(state: EmulatorState, transform: (value: string) => string): EmulatorState {
  const senha = secretOf(state);
  if (senha === undefined) return state;
  const settings = state.nfseConfiguracoes;
  const adicionais = { ...settings.adicionais, cadastroPrefeitura: { ...settings.adicionais.cadastroPrefeitura, senha: transform(senha) } };
  return { ...state, nfseConfiguracoes: { ...settings, adicionais } };
}

function seal(value: string, key: Buffer): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return `${sealedPrefix}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

function unseal(value: string, key: Buffer | undefined): string {
  if (!value.startsWith(sealedPrefix)) return value;
  if (!key) return '';
  const raw = Buffer.from(value.slice(sealedPrefix.length), 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, ivBytes));
    decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(raw.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
  } catch {
    // Another key (a state file copied from elsewhere): the secret is gone, the rest of the state is not.
    return '';
  }
}

const keyFileOf = (statePath: string): string => `${statePath}.key`;

async function readKey(statePath: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(keyFileOf(statePath), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ErpsyncError('STATE_FILE', `cannot read the sandbox key ${keyFileOf(statePath)}`, { cause: error });
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== keyBytes) throw new ErpsyncError('STATE_FILE', `the sandbox key ${keyFileOf(statePath)} is not a key; delete it (the sealed secrets go with it)`);
  return key;
}

async function readOrCreateKey(statePath: string): Promise<Buffer> {
  const existing = await readKey(statePath);
  if (existing) return existing;
  const key = randomBytes(keyBytes);
  try {
    await writeFileAtomically(keyFileOf(statePath), `${key.toString('base64')}\n`, { mode: 0o600, exclusive: true });
    return key;
  } catch (error) {
    if (isErpsyncError(error)) throw error;
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return (await readKey(statePath)) ?? key;
    throw new ErpsyncError('STATE_FILE', `cannot write the sandbox key ${keyFileOf(statePath)}`, { cause: error });
  }
}
