// Colours of the terminal UI by meaning, so that NO_COLOR (theme.color false) turns every one of
// them off in one place and the components never name a colour themselves.
export interface Theme {
  color: boolean;
}

const palette = { ok: 'green', failed: 'red', warn: 'yellow', muted: 'gray', accent: 'cyan' } as const;

export type Tone = keyof typeof palette;

export function paint(theme: Theme, tone: Tone): string | undefined {
  return theme.color ? palette[tone] : undefined;
}
