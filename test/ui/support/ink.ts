// Helpers for driving ink components in the ink testing renderer: keys go in one at a time, as a
// person types them, and assertions wait for the frame that should follow.
import { eventually } from '../../support/eventually.js';

interface Rendered {
  lastFrame: () => string | undefined;
  stdin: { write: (data: string) => void };
}

export function waitForFrame(app: Rendered, test: (frame: string) => boolean): Promise<string> {
  return eventually(() => {
    const frame = app.lastFrame() ?? '';
    if (!test(frame)) throw new Error(`frame not reached; last frame:\n${frame}`);
    return frame;
  });
}

/** Each key in its own read, with a turn of the event loop between (ink re-subscribes per render). */
export async function typeKeys(app: Rendered, keys: readonly string[]): Promise<void> {
  for (const key of keys) {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
