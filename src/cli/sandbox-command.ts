// `erpsync sandbox`: serves the embedded emulator until Ctrl-C / SIGTERM (io.signal), then stops
// and saves its state. Reading the flags is pure; the command only wires them to createEmulator.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { claimStateFile, createEmulator, defaultOAuthClient, parseFaultSpec } from '../emulator/index.js';
import type { EmulatorOptions } from '../emulator/index.js';
import { ErpsyncError } from '../model/errors.js';
import type { CliIO } from './io.js';
import { writeLine } from './io.js';

const usage = [
  'usage: erpsync sandbox [options]',
  '',
  'Serves the embedded Bling API v3 emulator on loopback until Ctrl-C, then saves its state.',
  '',
  'options (each also read from the environment variable shown):',
  '  --port N          port to listen on; 0 picks a free one (ERPSYNC_SANDBOX_PORT, default 0)',
  '  --state FILE      state file, reloaded on start (ERPSYNC_SANDBOX_STATE, default .erpsync/sandbox.json)',
  '  --seed S          fresh | empty | FILE: first state when the state file does not exist (ERPSYNC_SANDBOX_SEED, default fresh)',
  '  --rate-limit N    requests per second, 0 = off (ERPSYNC_SANDBOX_RATE_LIMIT, default 3)',
  '  --faults SPEC     fault injection, e.g. p=0.1,seed=7,kinds=http503+reset-after or POST/situacoes#1=http500',
  '                    (ERPSYNC_SANDBOX_FAULTS)',
  '  --token T         bearer token to accept (ERPSYNC_SANDBOX_TOKEN, default: random)',
].join('\n');

export interface SandboxCommandOptions {
  help: boolean;
  emulator: EmulatorOptions & { stateFile: string };
}

function usageError(message: string, cause?: unknown): ErpsyncError {
  return new ErpsyncError('USAGE', `sandbox: ${message}`, { cause, details: ['run `erpsync sandbox --help` for the options'] });
}

function readNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw usageError(`--${name} must be a non-negative number, got '${raw}'`);
  return value;
}

/** Flags win over their environment twins; relative paths resolve against the working directory. */
export function readSandboxOptions(args: string[], env: NodeJS.ProcessEnv, cwd: string): SandboxCommandOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        state: { type: 'string' },
        seed: { type: 'string' },
        'rate-limit': { type: 'string' },
        faults: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        debug: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
  const flag = (name: string, envName: string): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : env[envName];
  };
  const port = readNumber('port', flag('port', 'ERPSYNC_SANDBOX_PORT'), 0);
  if (!Number.isInteger(port) || port > 65_535) throw usageError(`--port must be an integer from 0 to 65535`);
  const seed = flag('seed', 'ERPSYNC_SANDBOX_SEED') ?? 'fresh';
  const faultsText = flag('faults', 'ERPSYNC_SANDBOX_FAULTS');
  const token = flag('token', 'ERPSYNC_SANDBOX_TOKEN');
  const emulator: SandboxCommandOptions['emulator'] = {
    port,
    stateFile: resolve(cwd, flag('state', 'ERPSYNC_SANDBOX_STATE') ?? '.erpsync/sandbox.json'),
    seed: seed === 'fresh' || seed === 'empty' ? seed : resolve(cwd, seed),
    rateLimit: readNumber('rate-limit', flag('rate-limit', 'ERPSYNC_SANDBOX_RATE_LIMIT'), 3),
  };
  if (faultsText !== undefined && faultsText !== '') {
    try {
      emulator.faults = parseFaultSpec(faultsText);
    } catch (error) {
      throw usageError(`--faults: ${(error as Error).message}`, error);
    }
  }
  if (token !== undefined) {
    if (!/^\S+$/.test(token)) throw usageError('--token must be a non-empty string without spaces');
    emulator.token = token;
  }
  return { help: values.help === true, emulator };
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

export async function runSandboxCommand(args: string[], io: CliIO): Promise<number> {
  const options = readSandboxOptions(args, io.env, io.cwd);
  if (options.help) {
    writeLine(io.stdout, usage);
    return 0;
  }
  const stateFile = options.emulator.stateFile;
  const claim = await claimStateFile(stateFile, 'server');
  if (!('release' in claim)) {
    throw new ErpsyncError('SANDBOX_BUSY', `the sandbox state ${stateFile} is in use by another erpsync ${claim.role === 'server' ? 'sandbox server' : 'run'} (pid ${claim.pid})${claim.baseUrl ? ` at ${claim.baseUrl}` : ''}`, {
      details: ['one process owns a state file at a time; stop the other one, or pass --state with another file'],
    });
  }
  let emulator;
  try {
    emulator = await createEmulator(options.emulator);
    await claim.publish(emulator.baseUrl, emulator.token);
  } catch (error) {
    await emulator?.close();
    await claim.release();
    throw error;
  }
  const client = defaultOAuthClient;
  writeLine(io.stdout, `erpsync sandbox listening on ${emulator.baseUrl}`);
  writeLine(io.stdout, `  token:  ${emulator.token}`);
  writeLine(io.stdout, `  state:  ${options.emulator.stateFile}`);
  writeLine(io.stdout, `  oauth:  client ${client.clientId} / ${client.clientSecret}, redirect ${client.redirectUri}`);
  writeLine(io.stdout, 'Press Ctrl-C to stop.');
  await waitForAbort(io.signal);
  await emulator.close();
  await claim.release();
  writeLine(io.stdout, `erpsync sandbox stopped; state saved to ${options.emulator.stateFile}`);
  return 0;
}
