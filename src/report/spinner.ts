// The spinner's frames, without React: the terminal UI's progress view animates them, and so
// does the CLI's start-up line (reading the account, before the UI is loaded).
const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function spinnerFrame(tick: number): string {
  return frames[tick % frames.length] ?? '';
}
