// One file rewritten by several callers of one process (the stores of a fleet share the request
// count and the read-back memory): each read-modify-write of it runs after the one before, so
// none overwrites another's change. Other processes are not covered — the local backend is one
// machine's; the postgres backend is the shared one. It touches no file itself.

const turns = new Map<string, Promise<unknown>>();

/** Runs `work` on `file` after every earlier turn of this process on the same file. */
export function withFileTurn<T>(file: string, work: () => Promise<T>): Promise<T> {
  const turn = (turns.get(file) ?? Promise.resolve()).then(work);
  turns.set(file, turn.catch(() => undefined));
  return turn;
}
