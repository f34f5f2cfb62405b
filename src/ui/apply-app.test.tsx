// The interactive apply screen in the ink testing renderer: plan summary and confirmation, live
// progress (log, spinners, status line), Ctrl-C asking once before stopping, and the summary.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApplyProgress } from '../report/apply-progress.js';
import { advanceProgress, createProgress } from '../report/apply-progress.js';
import { confirmationFor } from '../report/apply-report.js';
import { makeChange, makePlan } from '../../test/ui/support/plans.js';
import { typeKeys, waitForFrame } from '../../test/ui/support/ink.js';
import type { ApplyAppProps } from './apply-app.js';
import { ApplyApp } from './apply-app.js';
import type { ApplyEvent } from '../model/events.js';
import { eventually } from '../../test/support/eventually.js';

afterEach(() => cleanup());

const a = makeChange('create', 'Maquiagem', 1);
const b = makeChange('create', 'Perfumaria', 1);
const c = makeChange('delete', 'Antigo', 2, { liveId: 7 });
const plan = makePlan([a, b, c]);

/** Folds events into a progress at the given clock readings (ms). */
function fold(steps: [number, ApplyEvent][]): ApplyProgress {
  return steps.reduce((progress, [at, event]) => advanceProgress(progress, event, at), createProgress());
}

const running = fold([
  [1_000, { type: 'apply-start', changes: 3, waves: 2 }],
  [1_000, { type: 'wave-start', wave: 1, changes: 2 }],
  [1_000, { type: 'change-start', change: a }],
  [1_000, { type: 'change-start', change: b }],
  [3_000, { type: 'change-end', change: a, outcome: { status: 'applied', id: 11 }, requests: 3 }],
]);

function props(overrides: Partial<ApplyAppProps> = {}): ApplyAppProps {
  return {
    phase: 'applying',
    planSummary: 'Plan: 2 to create, 1 to delete.',
    confirmation: confirmationFor(plan),
    progress: running,
    notConverged: [],
    theme: { color: false },
    now: () => 3_000,
    onAnswer: () => undefined,
    onStop: () => undefined,
    ...overrides,
  };
}

describe('ApplyApp', () => {
  it('shows the plan summary and asks for the number of deletes', async () => {
    const onAnswer = vi.fn<(ok: boolean) => void>();
    const app = render(<ApplyApp {...props({ phase: 'confirm', progress: createProgress(), onAnswer })} />);
    const frame = await waitForFrame(app, (f) => f.includes('Type 1 to apply:'));
    expect(frame).toContain('Plan: 2 to create, 1 to delete.');
    expect(frame).toContain('This deletes or retires 1 record(s) in Loja Teste Ltda');
    await typeKeys(app, ['1', '\r']);
    await eventually(() => expect(onAnswer).toHaveBeenCalledWith(true));
  });

  it('shows finished changes, a spinner per change in flight and the status line', async () => {
    const app = render(<ApplyApp {...props()} />);
    const frame = await waitForFrame(app, (f) => f.includes('done'));
    expect(frame).toContain('Wave 1: 2 change(s)');
    expect(frame).toContain('✓ ok      gruposProdutos "Maquiagem" create (id 11)');
    expect(frame).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] gruposProdutos "Perfumaria" create/);
    // 1 of 3 done after 2 s: 3 requests in 2 s, and 2 more changes at 2 s each.
    expect(frame).toContain('wave 1/2 · 1/3 done · 0 failed · 0:02 elapsed · 1.5 req/s · about 0:04 left');
  });

  it('counts failures as they happen', async () => {
    const progress = advanceProgress(running, { type: 'change-end', change: b, outcome: { status: 'failed', error: 'HTTP 400: nome inválido', code: 'API_ERROR' }, requests: 4 }, 3_000);
    const app = render(<ApplyApp {...props({ progress })} />);
    const frame = await waitForFrame(app, (f) => f.includes('2/3 done'));
    expect(frame).toContain('✗ failed  gruposProdutos "Perfumaria" create: HTTP 400: nome inválido');
    expect(frame).toContain('· 1 failed ·');
  });

  it('pauses on Ctrl-C while it asks, goes on after "n", and stops on "y" (or a second Ctrl-C)', async () => {
    const onStop = vi.fn();
    const onPause = vi.fn();
    const app = render(<ApplyApp {...props({ onStop, onPause })} />);
    await waitForFrame(app, (f) => f.includes('done'));
    await typeKeys(app, ['\u0003']);
    await waitForFrame(app, (f) => f.includes('Paused: no new change starts. Stop applying?'));
    expect(onPause).toHaveBeenLastCalledWith(true);
    expect(onStop).not.toHaveBeenCalled();

    await typeKeys(app, ['x']);
    expect(app.lastFrame()).toContain('Stop applying?');
    await typeKeys(app, ['n']);
    await waitForFrame(app, (f) => !f.includes('Stop applying?'));
    expect(onPause).toHaveBeenLastCalledWith(false);
    expect(onStop).not.toHaveBeenCalled();

    await typeKeys(app, ['\u0003', 'y']);
    await waitForFrame(app, (f) => f.includes('Stopping: waiting for 1 change(s) in flight…'));
    expect(onStop).toHaveBeenCalledTimes(1);
    expect(onPause).toHaveBeenLastCalledWith(false);
    await typeKeys(app, ['\u0003']);
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('ignores Ctrl-C while the account is read back', async () => {
    const onStop = vi.fn();
    const app = render(<ApplyApp {...props({ phase: 'verifying', onStop })} />);
    await waitForFrame(app, (f) => f.includes('Reading back what was written…'));
    await typeKeys(app, ['\u0003', '\u0003']);
    expect(onStop).not.toHaveBeenCalled();
    expect(app.lastFrame()).not.toContain('Stop applying?');
  });

  it('ends with the counts, the cost, the failures again, what did not converge and how to resume', async () => {
    const progress = fold([
      [0, { type: 'apply-start', changes: 3, waves: 2 }],
      [0, { type: 'wave-start', wave: 1, changes: 2 }],
      [0, { type: 'change-start', change: a }],
      [4_000, { type: 'change-end', change: a, outcome: { status: 'applied', id: 11 }, requests: 2 }],
      [4_000, { type: 'change-end', change: b, outcome: { status: 'failed', error: 'HTTP 400: nome inválido', code: 'API_ERROR' }, requests: 3 }],
      [4_000, { type: 'change-end', change: c, outcome: { status: 'skipped', because: 'interrupted' }, requests: 3 }],
      [6_000, { type: 'apply-end', applied: 1, failed: 1, skipped: 1, blocked: 0, interrupted: true, requests: 3 }],
    ]);
    const app = render(<ApplyApp {...props({ phase: 'done', progress, notConverged: ['gruposProdutos "Maquiagem" nome'], now: () => 60_000 })} />);
    const frame = await waitForFrame(app, (f) => f.includes('Apply:'));
    expect(frame).toContain('Apply: 1 applied, 1 failed, 1 skipped, 0 blocked.');
    // The clock stopped at apply-end: 3 requests in 6 s.
    expect(frame).toContain('3 request(s) in 0:06 (0.5 req/s).');
    expect(frame.split('failed  gruposProdutos "Perfumaria" create: HTTP 400').length - 1).toBe(2);
    expect(frame).toContain('not converged: gruposProdutos "Maquiagem" nome');
    expect(frame).toContain('Interrupted: the changes not started were skipped; run apply again to finish.');
    expect(frame).not.toContain('done ·');
  });

  it('says so when the confirmation is refused', async () => {
    const app = render(<ApplyApp {...props({ phase: 'cancelled', progress: createProgress() })} />);
    await waitForFrame(app, (f) => f.includes('Apply cancelled; nothing was changed.'));
  });
});

describe('ApplyApp before the first event', () => {
  it('says it is starting rather than showing empty counts', async () => {
    const app = render(<ApplyApp {...props({ progress: createProgress() })} />);
    const frame = await waitForFrame(app, (f) => f.includes('Starting…'));
    expect(frame).not.toContain('done');
  });
});
