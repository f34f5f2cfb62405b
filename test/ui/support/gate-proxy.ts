// A loopback HTTP proxy in front of the emulator that can hold one request until the test lets it
// go: the deterministic way to have a change "in flight" while a test presses keys.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Gate {
  /** The proxy's base URL (same path as the emulator's). */
  baseUrl: string;
  /** Resolves when the held request has arrived (and is waiting). */
  arrived: Promise<void>;
  /** Lets the held request through. */
  release(): void;
  close(): Promise<void>;
}

/** Holds the `nth` request (1-based) whose method and path match; all others pass at once. */
export async function openGate(target: string, match: { method: string; path: string; nth: number }): Promise<Gate> {
  const upstream = new URL(target);
  let seen = 0;
  let signalArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    signalArrived = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((req, res) => {
    const held = req.method === match.method && new URL(req.url ?? '/', 'http://x').pathname.endsWith(match.path) && ++seen === match.nth;
    const forward = () => {
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (!held) return forward();
    signalArrived();
    void released.then(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    arrived,
    release,
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
