// Every byte a command writes to the terminal passes through the run's secret mask (see
// model/secret-mask): the values of erpsync's credential variables from the start, and the
// values of the variables that feed secret fields once the manifests are loaded. Messages are
// written not to quote such values in the first place; this is the net under them.
import type { RunIO } from '../workflows/run-io.js';
import { registry } from '../kinds/registry.js';
import { createSecretMask, isSecretCredentialVariable } from '../model/secret-mask.js';
import type { SecretMask } from '../model/secret-mask.js';

/** The variables known before any manifest is read: credentials, and the kinds' own secret variables (a saved plan names them). */
function knownSecretVariables(env: NodeJS.ProcessEnv): string[] {
  const kindVariables = registry.units.flatMap((unit) => Object.values(unit.secretVariables ?? {}));
  return [...Object.keys(env).filter(isSecretCredentialVariable), ...kindVariables];
}

/** A stream like `stream` (same TTY facts, events, methods) whose writes are masked. */
function maskStream<T extends RunIO['stdout']>(stream: T, mask: SecretMask): T {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const masked = typeof chunk === 'string' ? mask.mask(chunk) : Buffer.isBuffer(chunk) ? mask.mask(chunk.toString('utf8')) : chunk;
    return (stream.write as (...args: unknown[]) => boolean).call(stream, masked, ...rest);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `io` with a secret mask over stdout and stderr; commands add the values they learn to `io.mask`. */
export function withOutputMask(io: RunIO): RunIO {
  const mask = createSecretMask(knownSecretVariables(io.env).map((name) => io.env[name]));
  // No spread: it would read stdin, which builds the process's stdin stream for every command.
  return {
    stdout: maskStream(io.stdout, mask),
    stderr: maskStream(io.stderr, mask),
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    cwd: io.cwd,
    signal: io.signal,
    mask,
  };
}
