// Which output a command chooses from its streams and environment.
import { describe, expect, it } from 'vitest';
import { chooseOutputMode, isColorEnabled } from './output-mode.js';

const io = (stdoutTty: boolean, stdinTty: boolean, env: NodeJS.ProcessEnv = {}) => ({
  stdout: { isTTY: stdoutTty } as never,
  stdin: { isTTY: stdinTty } as never,
  env,
});

describe('chooseOutputMode', () => {
  it('is interactive only with a terminal on both ends, outside CI, without --json', () => {
    expect(chooseOutputMode(io(true, true), false)).toBe('interactive');
    expect(chooseOutputMode(io(true, true), true)).toBe('json');
    expect(chooseOutputMode(io(false, true), false)).toBe('plain');
    expect(chooseOutputMode(io(true, false), false)).toBe('plain');
    expect(chooseOutputMode(io(true, true, { CI: 'true' }), false)).toBe('plain');
    expect(chooseOutputMode(io(true, true, { CI: 'false' }), false)).toBe('interactive');
    // ink's own CI rule: an empty CI, or CONTINUOUS_INTEGRATION, also makes it draw only its last frame.
    expect(chooseOutputMode(io(true, true, { CI: '' }), false)).toBe('plain');
    expect(chooseOutputMode(io(true, true, { CONTINUOUS_INTEGRATION: 'yes' }), false)).toBe('plain');
    expect(chooseOutputMode(io(true, true, { TERM: 'dumb' }), false)).toBe('plain');
  });
});

describe('isColorEnabled', () => {
  it('honours NO_COLOR and never colours what is not a terminal', () => {
    expect(isColorEnabled(io(true, true))).toBe(true);
    expect(isColorEnabled(io(true, true, { NO_COLOR: '1' }))).toBe(false);
    expect(isColorEnabled(io(true, true, { NO_COLOR: '' }))).toBe(true);
    expect(isColorEnabled(io(false, true))).toBe(false);
    expect(isColorEnabled(io(true, true, { CI: '1' }))).toBe(false);
  });
});
