// A misbehaving server on 127.0.0.1 in front of an emulated account: it passes what it does not
// misbehave on through to the emulator, and for the rest answers as a broken or hostile service
// would — a Retry-After of a day (429 or 503), a body trickling a byte at a time, no answer at all, an endless
// (2 GB) body, or POSTs swallowed (never committed, never answered). It counts the bytes it sent,
// so a test can tell that a client stopped reading instead of holding everything.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type Misbehaviour = 'retry-after-seconds' | 'retry-after-date' | 'unavailable-for-a-day' | 'trickle' | 'silent' | 'huge' | 'swallow-posts';

export interface HostileServer {
  /** The emulator's base URL with this server's origin. */
  baseUrl: string;
  /** Body bytes sent by misbehaving answers so far. */
  bytesSent(): number;
  close(): Promise<void>;
}

const twoGigabytes = 2 * 1024 ** 3;

export async function startHostileServer(upstreamBaseUrl: string, behaviour: Misbehaviour): Promise<HostileServer> {
  const upstream = new URL(upstreamBaseUrl);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let sent = 0;
  const misbehaves = (req: IncomingMessage) => (behaviour === 'swallow-posts' ? req.method === 'POST' : true);

  const misbehave = (req: IncomingMessage, res: ServerResponse): void => {
    switch (behaviour) {
      case 'retry-after-seconds':
      case 'retry-after-date': {
        const retryAfter = behaviour === 'retry-after-seconds' ? '86400' : new Date(Date.now() + 86_400_000).toUTCString();
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter });
        res.end(JSON.stringify({ error: { type: 'TOO_MANY_REQUESTS', message: 'Limite de requisições atingido', description: 'tente mais tarde' } }));
        return;
      }
      case 'unavailable-for-a-day':
        res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '86400' });
        res.end('<html><body>Service Unavailable</body></html>');
        return;
      case 'trickle': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => {
          res.write(' ');
          sent += 1;
        }, 200);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, ' ');
        const pump = (): void => {
          while (sent < twoGigabytes && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      case 'silent':
      case 'swallow-posts':
        req.resume();
        return;
    }
  };

  const server = createServer((req, res) => {
    if (misbehaves(req)) return misbehave(req, res);
    void passThrough(req, res, upstream.origin);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    bytesSent: () => sent,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function passThrough(req: IncomingMessage, res: ServerResponse, origin: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'accept']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const answer = await fetch(`${origin}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) });
  res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
  res.end(Buffer.from(await answer.arrayBuffer()));
}
