// Live progress of a running apply: a spinner per change in flight, then one status line (wave,
// done/failed, elapsed, requests per second, time left), and the stop question after Ctrl-C.
// Finished changes are not drawn here: they go to the log above (ApplyLog), which scrolls.
import { Box, Text } from 'ink';
import type { ApplyProgress } from '../report/apply-progress.js';
import { describeProgressLine, describeSubject } from '../report/apply-progress.js';
import type { Theme } from './theme.js';
import { paint } from './theme.js';
import { spinnerFrame, useTick } from './use-tick.js';

export type StopState = 'running' | 'asking' | 'stopping';

export interface ProgressViewProps {
  progress: ApplyProgress;
  stop: StopState;
  /** The apply is over and the account is being read back. */
  verifying: boolean;
  theme: Theme;
  now: () => number;
}

export function ProgressView({ progress, stop, verifying, theme, now }: ProgressViewProps) {
  const tick = useTick(100, true);
  const spinner = <Text color={paint(theme, 'accent')}>{spinnerFrame(tick)}</Text>;
  return (
    <Box flexDirection="column">
      {progress.inFlight.map((change) => (
        <Text key={change.id}>
          {'  '}
          {spinner} {describeSubject(change)}
        </Text>
      ))}
      {verifying ? (
        <Text>
          {spinner} Reading back what was written…
        </Text>
      ) : (
        <Text color={paint(theme, 'muted')}>{progress.startedAt === undefined ? 'Starting…' : describeProgressLine(progress, now())}</Text>
      )}
      {stop === 'asking' && !verifying ? (
        <Text color={paint(theme, 'warn')}>Paused: no new change starts. Stop applying? Changes in flight finish, the rest are skipped. y (or Ctrl-C) stops · n goes on</Text>
      ) : null}
      {stop === 'stopping' && !verifying ? (
        <Text color={paint(theme, 'warn')}>Stopping: waiting for {progress.inFlight.length} change(s) in flight…</Text>
      ) : null}
    </Box>
  );
}
