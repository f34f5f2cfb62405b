// The lines of an apply that do not change once written (a wave began, a change finished),
// printed once above the live area so they stay in the terminal's scrollback.
import { Static, Text } from 'ink';
import type { ProgressEntry } from '../report/apply-progress.js';
import { describeOutcome } from '../report/apply-progress.js';
import type { Theme, Tone } from './theme.js';
import { paint } from './theme.js';
import type { ChangeOutcome } from '../model/events.js';

const marks: Record<ChangeOutcome['status'], { mark: string; tone: Tone }> = {
  applied: { mark: '✓', tone: 'ok' },
  failed: { mark: '✗', tone: 'failed' },
  skipped: { mark: '–', tone: 'warn' },
  blocked: { mark: '!', tone: 'warn' },
};

export function ApplyLog({ entries, theme }: { entries: ProgressEntry[]; theme: Theme }) {
  return (
    <Static items={entries}>
      {(entry) => {
        if (entry.type === 'wave') {
          return (
            <Text key={`wave-${entry.wave}`} bold>
              Wave {entry.wave}: {entry.changes} change(s)
            </Text>
          );
        }
        const { mark, tone } = marks[entry.outcome.status];
        return (
          <Text key={entry.change.id} color={paint(theme, tone)}>
            {'  '}
            {mark} {describeOutcome(entry.change, entry.outcome)}
          </Text>
        );
      }}
    </Static>
  );
}
