// Waiting for a running command's output (login waits for a browser, sandbox for Ctrl-C).

/** Polls `read()` until `pattern` matches it; the match, or an error after `ms`. */
export async function waitForOutput(read: () => string, pattern: RegExp, ms = 5_000): Promise<RegExpExecArray> {
  for (const started = Date.now(); Date.now() - started < ms; ) {
    const match = pattern.exec(read());
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no output matching ${pattern} within ${ms} ms; got:\n${read()}`);
}
