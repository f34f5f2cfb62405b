// Every byte a command writes passes through a mask of erpsync's own credentials (access and
// refresh tokens, the client secret, a proxy variable's user:password: see model/secret-mask). Nothing erpsync prints holds them —
// they never enter the data a command shows, and the API layer redacts them from what it reports
// — so this is only the net under a library's message. It masks text, which is safe for tokens
// alone: they are long random strings, so every occurrence is the token and its replacement
// lands inside a string of any format. Manifest secrets (an NFS-e password such as `true`) are
// not masked here: they are left out of the data before it is serialised (plans, drift, export,
// diagnostics), where a field is known to be secret.
import { proxyVariableSecrets } from '../api/index.js';
import type { RunIO } from '../model/run-io.js';
import { createSecretMask, isSecretCredentialVariable } from '../model/secret-mask.js';
import type { SecretMask } from '../model/secret-mask.js';

function credentialVariables(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter(isSecretCredentialVariable);
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

/** `io` with the credential mask over stdout and stderr. */
export function withOutputMask(io: RunIO): RunIO {
  const mask = createSecretMask([...credentialVariables(io.env).map((name) => io.env[name]), ...proxyVariableSecrets(io.env)]);
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
