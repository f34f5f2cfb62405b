// The confirmation before apply: the person types `yes`, or the number of deletes when the plan
// deletes anything. Enter answers; Esc or Ctrl-C cancels. Any other answer is a no.
import { Box, Text, useInput } from 'ink';
import { useRef, useState } from 'react';
import type { Confirmation } from '../report/apply-report.js';
import { acceptsAnswer } from '../report/apply-report.js';
import type { Theme } from './theme.js';
import { paint } from './theme.js';

export interface ConfirmPromptProps {
  confirmation: Confirmation;
  theme: Theme;
  onAnswer: (ok: boolean) => void;
}

export function ConfirmPrompt({ confirmation, theme, onAnswer }: ConfirmPromptProps) {
  const [typed, setTyped] = useState('');
  const [answered, setAnswered] = useState(false);
  // Keys can arrive faster than React re-renders: the ref always holds what was typed so far.
  const typedRef = useRef('');
  const answeredRef = useRef(false);

  const type = (text: string) => {
    typedRef.current = text;
    setTyped(text);
  };
  const answer = (ok: boolean) => {
    if (answeredRef.current) return;
    answeredRef.current = true;
    setAnswered(true);
    onAnswer(ok);
  };

  useInput(
    (input, key) => {
      if ((key.ctrl && input === 'c') || key.escape) return answer(false);
      if (key.return) return answer(acceptsAnswer(confirmation, typedRef.current));
      if (key.backspace || key.delete) return type(typedRef.current.slice(0, -1));
      if (key.ctrl || key.meta) return undefined;
      // A pasted answer may carry its own Enter.
      const enter = input.search(/[\r\n]/);
      if (enter >= 0) return answer(acceptsAnswer(confirmation, typedRef.current + input.slice(0, enter)));
      return type(typedRef.current + input);
    },
    { isActive: !answered },
  );

  return (
    <Box flexDirection="column">
      <Text>
        <Text bold color={paint(theme, 'warn')}>
          {confirmation.question}
        </Text>{' '}
        {typed}
        {answered ? '' : <Text inverse> </Text>}
      </Text>
      {answered ? null : <Text color={paint(theme, 'muted')}>Enter answers · Esc or Ctrl-C cancels</Text>}
    </Box>
  );
}
