// The interactive session's contract with the CLI where the CLI tests cannot reach: a UI that
// crashes fails the command (INTERNAL) instead of leaving it waiting for an answer forever.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startInteractiveApply } from '../../src/ui/interactive-apply.js';
import { makeChange, makePlan } from './support/plans.js';
import { TerminalOutput } from './support/terminal.js';

describe('startInteractiveApply', () => {
  it('rejects the confirmation and the close when ink cannot run on the streams', async () => {
    // A terminal lookalike without ref/unref: ink fails as soon as it asks for raw mode.
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
    const session = startInteractiveApply({
      stdout: new TerminalOutput(),
      stderr: new TerminalOutput(),
      stdin,
      plan: makePlan([makeChange('create', 'A', 1)]),
      color: false,
      autoApprove: false,
    });
    await expect(session.confirm()).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('the terminal UI failed') });
    await expect(session.close()).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
