import { describe, expect, it } from 'vitest';
import { parseCommandFlags, planFlags, readDuration, readNumber } from './flags.js';
import { readTargetRequest } from './target-request.js';

describe('readDuration', () => {
  it('reads hours, minutes and seconds, or plain seconds, as ms', () => {
    expect(readDuration('2h', '--within')).toBe(7_200_000);
    expect(readDuration('90m', '--within')).toBe(5_400_000);
    expect(readDuration('1h30m', '--within')).toBe(5_400_000);
    expect(readDuration('45s', '--within')).toBe(45_000);
    expect(readDuration('7200', '--within')).toBe(7_200_000);
    expect(readDuration(undefined, '--within')).toBeUndefined();
  });

  it('refuses anything else, naming the flag', () => {
    for (const text of ['2 h', '1.5h', 'h', '-1', '2d', '30m1h']) {
      expect(() => readDuration(text, '--within')).toThrow(/--within takes a duration/);
    }
  });
});

describe('readNumber, the one numeric reader', () => {
  it('reads whole numbers from a minimum, and any number above a bound (up to a maximum)', () => {
    expect(readNumber('7', '--max-deletes')).toBe(7);
    expect(readNumber('0', '--max-deletes')).toBe(0);
    expect(readNumber('3', '--parallel', { min: 1 })).toBe(3);
    expect(readNumber('1.5', '--rate', { above: 0 })).toBe(1.5);
    expect(readNumber('1', '--min-share', { above: 0, max: 1 })).toBe(1);
    expect(readNumber(undefined, '--rate', { above: 0 })).toBeUndefined();
    expect(readNumber('  ', '--rate', { above: 0 })).toBeUndefined();
  });

  it('refuses what is out of range or not a number, naming the flag and the value', () => {
    expect(() => readNumber('0', '--parallel', { min: 1 })).toThrow('--parallel takes a whole number ≥ 1, not `0`');
    expect(() => readNumber('1.5', '--max-requests', { min: 1 })).toThrow('--max-requests takes a whole number ≥ 1, not `1.5`');
    expect(() => readNumber('0', '--rate', { above: 0 })).toThrow('--rate takes a number above 0, not `0`');
    expect(() => readNumber('fast', '--rate', { above: 0 })).toThrow('--rate takes a number above 0, not `fast`');
    expect(() => readNumber('1.2', '--min-share', { above: 0, max: 1 })).toThrow('--min-share takes a number above 0 and at most 1, not `1.2`');
  });
});

describe('the target request', () => {
  it('is built once from the flag table, its numbers read as numbers (flags, else their env twins)', () => {
    const { flags } = parseCommandFlags('plan', planFlags, ['--target', 'loja', '--rate', '2.5', '--max-requests', '40', '--request-timeout', '9'], { ERPSYNC_IP_RUNNERS: '4', ERPSYNC_SANDBOX_STATE: 's.json' });
    expect(readTargetRequest(flags)).toEqual({
      target: 'loja',
      allTargets: false,
      shard: undefined,
      baseUrl: undefined,
      sandbox: false,
      sandboxState: 's.json',
      rate: 2.5,
      maxRequests: 40,
      requestTimeoutMs: 9000,
      ipRunners: 4,
      config: undefined,
      debug: false,
    });
  });

  it('refuses a bad number where the flags are read, naming the flag or its env twin', () => {
    const read = (args: string[], env: NodeJS.ProcessEnv = {}) => () => parseCommandFlags('plan', planFlags, args, env);
    expect(read(['--rate', '0'])).toThrow(expect.objectContaining({ code: 'USAGE', message: '--rate takes a number above 0, not `0`' }));
    expect(read(['--max-requests', '1.5'])).toThrow(expect.objectContaining({ code: 'USAGE', message: '--max-requests takes a whole number ≥ 1, not `1.5`' }));
    expect(read(['--ip-runners', '0'])).toThrow(expect.objectContaining({ code: 'USAGE', message: '--ip-runners takes a whole number ≥ 1, not `0`' }));
    expect(read([], { ERPSYNC_RATE: 'x' })).toThrow(expect.objectContaining({ code: 'USAGE', message: 'ERPSYNC_RATE takes a number above 0, not `x`' }));
  });
});
