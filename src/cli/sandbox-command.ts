// `erpsync sandbox`: serves the embedded emulator until Ctrl-C / SIGTERM (io.signal), then stops
// and saves its state. Reading the flags is pure; the command only wires them to createEmulator.
import { resolve } from 'node:path';
import { claimStateFile, createEmulator, createIpLedger, defaultOAuthClient, parseFaultSpec } from '../emulator/index.js';
import type { EmulatorOptions } from '../emulator/index.js';
import { ErpsyncError } from '../model/errors.js';
import type { RunIO } from '../model/run-io.js';
import { writeLine } from '../model/run-io.js';
import { renderHelp } from './commands.js';
import { parseCommandFlags, sandboxFlags } from './flags.js';
import type { ParsedFlags } from './flags.js';

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

/** Flags win over their environment twins (the flag table reads both); relative paths resolve against the working directory. */
export function readSandboxOptions(args: string[], env: NodeJS.ProcessEnv, cwd: string): SandboxCommandOptions {
  let flags: ParsedFlags<(typeof sandboxFlags)[number]>;
  try {
    ({ flags } = parseCommandFlags('sandbox', sandboxFlags, args, env));
  } catch (error) {
    throw usageError((error as Error).message, error);
  }
  const port = readNumber('port', flags.port, 0);
  if (!Number.isInteger(port) || port > 65_535) throw usageError(`--port must be an integer from 0 to 65535`);
  const seed = flags.seed ?? 'fresh';
  const emulator: SandboxCommandOptions['emulator'] = {
    port,
    stateFile: resolve(cwd, flags.state ?? '.erpsync/sandbox.json'),
    seed: seed === 'fresh' || seed === 'empty' ? seed : resolve(cwd, seed),
    rateLimit: readNumber('rate-limit', flags['rate-limit'], 3),
    dailyLimit: readNumber('daily-limit', flags['daily-limit'], 120_000),
  };
  if (flags.faults !== undefined) {
    try {
      emulator.faults = parseFaultSpec(flags.faults);
    } catch (error) {
      throw usageError(`--faults: ${(error as Error).message}`, error);
    }
  }
  if (flags.token !== undefined) {
    if (!/^\S+$/.test(flags.token)) throw usageError('--token must be a non-empty string without spaces');
    emulator.token = flags.token;
  }
  if (flags.scopes !== undefined) {
    const scopes = flags.scopes.split(',').map((scope) => scope.trim()).filter((scope) => scope !== '');
    if (scopes.length === 0) throw usageError('--scopes needs at least one scope');
    emulator.scopes = scopes;
  }
  return { help: flags.help, emulator };
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}

export async function runSandboxCommand(args: string[], io: RunIO): Promise<number> {
  const options = readSandboxOptions(args, io.env, io.cwd);
  if (options.help) {
    writeLine(io.stdout, renderHelp('sandbox'));
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
    emulator = await createEmulator({ ...options.emulator, ipRules: createIpLedger() });
    await claim.publish(emulator.baseUrl, emulator.token, options.emulator.rateLimit);
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
