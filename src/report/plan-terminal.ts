// The plan as a person at a terminal sees it: coloured by the marker of each line (+ create,
// ~ change, - delete, ! blocked) and, for a large change set, with field diffs folded harder so
// the summary is not scrolled away. Works on renderPlanText's lines, so the words stay exactly
// those of the plain output; the caller decides whether colour is wanted at all.
const sgr = (open: number, close: number) => (text: string) => `\u001B[${open}m${text}\u001B[${close}m`;

const green = sgr(32, 39);
const yellow = sgr(33, 39);
const red = sgr(31, 39);
const magenta = sgr(35, 39);
const bold = sgr(1, 22);
const dim = sgr(2, 22);

const byMarker: Record<string, (text: string) => string> = { '+': green, '~': yellow, '-': red, '!': magenta };

/** Above this many changes a plan is "large": a few fields per change, the summary repeated last. */
export const largeChangeSet = 40;

export function colorizePlanLine(line: string): string {
  if (line.startsWith('Plan: ')) return bold(line);
  if (line.startsWith('WARNING: ')) return yellow(bold(line));
  if (/^\s+… \d+ more field/.test(line)) return dim(line);
  const marked = /^(\s*)([+~!-]) /.exec(line);
  const paint = marked?.[2] ? byMarker[marked[2]] : undefined;
  return paint ? paint(line) : line;
}

/** Field changes shown per record before folding; undefined shows them all. */
export function chooseFieldFold(changes: number, options: { verbose: boolean; terminal: boolean }): number | undefined {
  if (options.verbose) return undefined;
  return options.terminal && changes > largeChangeSet ? 5 : 20;
}
