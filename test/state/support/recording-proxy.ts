// What one runner sent each account, seen from the accounts' side: an HTTP proxy in front of
// emulated accounts that records every request with the time it arrived and the time its answer
// was sent. The emulator's own log has arrival times only and cannot tell one client from another;
// giving each runner a proxy of its own (its config's base URLs point at it) can. It forwards
// bodies and answers as they are, and changes nothing but the path prefix naming the account.
import { Agent, createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  /** The account's index in the list the proxy was opened with. */
  account: number;
  method: string;
  /** The path under the account's base URL. */
  path: string;
  arrivedAt: number;
  /** When the answer was sent back; absent while the request is still served (or was never answered). */
  answeredAt?: number;
  status?: number;
}

export interface RecordingProxy {
  /** The base URL that reaches `upstreams[account]` through this proxy. */
  baseUrlOf(account: number): string;
  log: ProxiedRequest[];
  close(): Promise<void>;
}

/** A proxy on a free loopback port for these base URLs (http://127.0.0.1:PORT/Api/v3). */
export async function openRecordingProxy(upstreams: readonly string[]): Promise<RecordingProxy> {
  const log: ProxiedRequest[] = [];
  const agent = new Agent({ keepAlive: true });
  const targets = upstreams.map((baseUrl) => new URL(baseUrl));
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const found = /^\/a(\d+)(\/.*)$/.exec(req.url ?? '');
    const upstream = found ? targets[Number(found[1])] : undefined;
    if (!found || !upstream) {
      res.writeHead(404).end();
      return;
    }
    const entry: ProxiedRequest = { account: Number(found[1]), method: req.method ?? 'GET', path: (found[2] ?? '').slice(upstream.pathname.length).split('?')[0] ?? '', arrivedAt: Date.now() };
    log.push(entry);
    const outgoing = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: found[2], headers: { ...req.headers, host: upstream.host }, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      res.once('finish', () => {
        entry.answeredAt = Date.now();
        entry.status = answer.statusCode;
      });
    });
    // A client that goes away mid-request takes its upstream request with it, as a dropped connection would.
    outgoing.once('error', () => res.destroy());
    req.pipe(outgoing);
  };
  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrlOf: (account) => `http://127.0.0.1:${port}/a${account}${targets[account]?.pathname ?? ''}`,
    log,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
