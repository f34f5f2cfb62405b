// How a command talks to whoever runs it: the interactive terminal UI, plain lines, or NDJSON.
// Decided once from the streams and the environment, so every command draws the line the same
// way: no terminal, `CI` set or `--json` means no escape codes at all.
import type { RunIO } from '../model/run-io.js';

export type OutputMode = 'interactive' | 'plain' | 'json';

type Streams = Pick<RunIO, 'stdout' | 'stdin' | 'env'>;

/**
 * Whether this is a CI run, by ink's own rule (CI or CONTINUOUS_INTEGRATION present and not
 * 0/false, even when empty): ink then draws only its last frame, so no terminal UI is chosen.
 */
function inkSeesCi(env: RunIO['env']): boolean {
  return ['CI', 'CONTINUOUS_INTEGRATION'].some((key) => key in env && env[key] !== '0' && env[key] !== 'false');
}

/** True when stdout is a terminal that can take cursor movement and colour at all. */
export function isCapableTerminal(io: Pick<RunIO, 'stdout' | 'env'>): boolean {
  return io.stdout.isTTY === true && !inkSeesCi(io.env) && io.env.TERM !== 'dumb';
}

/** Interactive needs a keyboard too: the UI asks and listens for Ctrl-C. */
export function chooseOutputMode(io: Streams, json: boolean): OutputMode {
  if (json) return 'json';
  return isCapableTerminal(io) && io.stdin.isTTY === true ? 'interactive' : 'plain';
}

/** https://no-color.org: any non-empty NO_COLOR turns colour off. */
export function isColorEnabled(io: Pick<RunIO, 'stdout' | 'env'>): boolean {
  return isCapableTerminal(io) && (io.env.NO_COLOR ?? '') === '';
}
