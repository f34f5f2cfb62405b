// The end of an apply: the counts, the request cost, the failures again (they may have scrolled
// away), what did not converge, and how to finish an interrupted run.
import { Box, Text } from 'ink';
import type { ApplyProgress } from '../report/apply-progress.js';
import { describeCost, describeOutcome, interruptedNote, summarizeApply } from '../report/apply-progress.js';
import type { Theme } from './theme.js';
import { paint } from './theme.js';
import { printable } from '../model/printable.js';

export interface SummaryViewProps {
  progress: ApplyProgress;
  notConverged: readonly string[];
  theme: Theme;
  now: () => number;
}

export function SummaryView({ progress, notConverged, theme, now }: SummaryViewProps) {
  const failures = progress.entries.flatMap((entry) => (entry.type === 'change' && entry.outcome.status === 'failed' ? [entry] : []));
  const clean = progress.failed === 0 && !progress.interrupted && notConverged.length === 0;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={paint(theme, clean ? 'ok' : 'failed')}>
        {summarizeApply(progress)}
      </Text>
      <Text color={paint(theme, 'muted')}>
        {'  '}
        {describeCost(progress, now())}
      </Text>
      {failures.map((entry) => (
        <Text key={entry.change.id} color={paint(theme, 'failed')}>
          {'  '}
          {describeOutcome(entry.change, entry.outcome)}
        </Text>
      ))}
      {notConverged.map((line) => (
        <Text key={line} color={paint(theme, 'warn')}>
          {'  '}not converged: {printable(line)}
        </Text>
      ))}
      {progress.interrupted ? <Text color={paint(theme, 'warn')}>{interruptedNote}</Text> : null}
    </Box>
  );
}
