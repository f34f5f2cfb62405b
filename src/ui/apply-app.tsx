// The whole interactive apply on one screen, phase by phase: the plan summary and the
// confirmation, live progress, then the summary. It holds only keyboard state (the Ctrl-C
// question); the apply itself runs outside and arrives here as props.
import { Box, Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import type { ApplyProgress } from '../report/apply-progress.js';
import type { Confirmation } from '../report/apply-report.js';
import { cancelledNote } from '../report/apply-report.js';
import { ApplyLog } from './apply-log.js';
import { ConfirmPrompt } from './confirm-prompt.js';
import type { StopState } from './progress-view.js';
import { ProgressView } from './progress-view.js';
import { SummaryView } from './summary-view.js';
import type { Theme } from './theme.js';

export type SessionPhase = 'confirm' | 'applying' | 'verifying' | 'done' | 'cancelled';

export interface ApplyAppProps {
  phase: SessionPhase;
  /** e.g. `Plan: 2 to create, 1 to update, 1 to retire.` */
  planSummary: string;
  confirmation: Confirmation;
  progress: ApplyProgress;
  notConverged: readonly string[];
  theme: Theme;
  now: () => number;
  onAnswer: (ok: boolean) => void;
  /** The person confirmed stopping: start no more changes. */
  onStop: () => void;
  /** Ctrl-C asks whether to stop: no change may start while the question shows (true), or again (false). */
  onPause?: (paused: boolean) => void;
}

export function ApplyApp(props: ApplyAppProps) {
  const { phase, progress, theme, now } = props;
  const [stop, setStop] = useState<StopState>('running');
  const stopRef = useRef<StopState>('running');
  const moveStop = (next: StopState) => {
    stopRef.current = next;
    setStop(next);
  };

  // Active from the first frame to the last so the terminal stays in raw mode throughout:
  // Ctrl-C reaches us as a key instead of killing the run half-way. It pauses dispatching at once
  // while it asks: "no" goes on, "yes" (or Ctrl-C again) stops; the changes in flight finish.
  useInput(
    (input, key) => {
      if (phase !== 'applying') return;
      const ctrlC = key.ctrl && input === 'c';
      if (stopRef.current === 'running') {
        if (!ctrlC) return;
        moveStop('asking');
        props.onPause?.(true);
      } else if (stopRef.current === 'asking') {
        if (ctrlC || /^y/i.test(input)) {
          moveStop('stopping');
          props.onStop();
          props.onPause?.(false);
        } else if (/^n/i.test(input) || key.escape || key.return) {
          moveStop('running');
          props.onPause?.(false);
        }
      }
    },
    { isActive: phase !== 'done' && phase !== 'cancelled' },
  );

  return (
    <Box flexDirection="column">
      <ApplyLog entries={progress.entries} theme={theme} />
      {phase === 'confirm' ? (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{props.planSummary}</Text>
          <ConfirmPrompt confirmation={props.confirmation} theme={theme} onAnswer={props.onAnswer} />
        </Box>
      ) : null}
      {phase === 'cancelled' ? <Text>{cancelledNote}</Text> : null}
      {phase === 'applying' || phase === 'verifying' ? (
        <ProgressView progress={progress} stop={stop} verifying={phase === 'verifying'} theme={theme} now={now} />
      ) : null}
      {phase === 'done' ? <SummaryView progress={progress} notConverged={props.notConverged} theme={theme} now={now} /> : null}
    </Box>
  );
}
