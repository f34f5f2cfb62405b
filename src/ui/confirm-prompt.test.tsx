// The confirmation prompt in the ink testing renderer: what counts as yes, and every way to say no.
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { Confirmation } from '../report/apply-report.js';
import { ConfirmPrompt } from './confirm-prompt.js';
import { waitForFrame, typeKeys } from '../../test/ui/support/ink.js';
import { eventually } from '../../test/support/eventually.js';

const yes: Confirmation = { question: 'Apply these changes? Type yes to apply:', expected: 'yes' };
const three: Confirmation = { question: 'This deletes or retires 3 record(s). Type 3 to apply:', expected: '3' };
const theme = { color: false };

afterEach(() => cleanup());

function mount(confirmation: Confirmation) {
  const onAnswer = vi.fn<(ok: boolean) => void>();
  const app = render(<ConfirmPrompt confirmation={confirmation} theme={theme} onAnswer={onAnswer} />);
  return { app, onAnswer };
}

describe('ConfirmPrompt', () => {
  it('shows the question and echoes what is typed', async () => {
    const { app } = mount(yes);
    await waitForFrame(app, (f) => f.includes('Type yes to apply:'));
    await typeKeys(app, ['y', 'e']);
    await waitForFrame(app, (f) => f.includes('Type yes to apply: ye'));
    expect(app.lastFrame()).toContain('Esc or Ctrl-C cancels');
  });

  it('answers yes to `yes` + Enter, in any case', async () => {
    const { app, onAnswer } = mount(yes);
    await typeKeys(app, ['Y', 'e', 'S', '\r']);
    await eventually(() => expect(onAnswer).toHaveBeenCalledWith(true));
    expect(onAnswer).toHaveBeenCalledTimes(1);
    await waitForFrame(app, (f) => !f.includes('Esc or Ctrl-C cancels'));
  });

  it('asks for the number of deletes and takes nothing else', async () => {
    const accepted = mount(three);
    await typeKeys(accepted.app, ['3', '\r']);
    await eventually(() => expect(accepted.onAnswer).toHaveBeenCalledWith(true));

    const refused = mount(three);
    await typeKeys(refused.app, ['y', 'e', 's', '\r']);
    await eventually(() => expect(refused.onAnswer).toHaveBeenCalledWith(false));
  });

  it('takes a pasted answer that carries its own Enter', async () => {
    const { app, onAnswer } = mount(three);
    await typeKeys(app, ['3\r']);
    await eventually(() => expect(onAnswer).toHaveBeenCalledWith(true));
  });

  it('edits with backspace before answering', async () => {
    const { app, onAnswer } = mount(three);
    await typeKeys(app, ['4', '\u007F', '3', '\r']);
    await eventually(() => expect(onAnswer).toHaveBeenCalledWith(true));
  });

  it.each([
    ['Ctrl-C', '\u0003'],
    ['Esc', '\u001B'],
  ])('cancels on %s, and only answers once', async (_name, key) => {
    const { app, onAnswer } = mount(yes);
    await typeKeys(app, ['y', 'e', 's', key]);
    await eventually(() => expect(onAnswer).toHaveBeenCalledWith(false));
    await typeKeys(app, ['\r']);
    expect(onAnswer).toHaveBeenCalledTimes(1);
  });
});
