// A loopback HTTP proxy for tests that logs what passes it, as a corporate proxy would see it:
// absolute-form requests (plain http: each request, method and URL) and CONNECT tunnels (https:
// the tunnel's host:port and the local port of its connection to the origin, the requests inside
// encrypted). Given credentials, it answers 407 to a request without them (Proxy-Authorization,
// Basic). Real sockets on 127.0.0.1; everything it opened is closed with it.
import { request as httpRequest, createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface TunnelEntry {
  method: 'CONNECT';
  authority: string;
  authorized: boolean;
  /** The local port of the proxy's connection to the origin (the origin sees it as the peer's). */
  upstreamPort?: number;
}

export type ProxyLogEntry = TunnelEntry | { method: string; url: string; authorized: boolean };

export interface LoggingProxy {
  /** `http://127.0.0.1:PORT`, without the credentials it may ask for. */
  url: string;
  port: number;
  log(): readonly ProxyLogEntry[];
  clearLog(): void;
  close(): Promise<void>;
}

export async function startLoggingProxy(options: { credentials?: { user: string; password: string } } = {}): Promise<LoggingProxy> {
  const entries: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket): Socket => {
    // A kept-alive connection to the origin serves many requests: its listener is added once.
    if (sockets.has(socket)) return socket;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    return socket;
  };
  const expected = options.credentials ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}` : undefined;
  const authorized = (headers: IncomingHttpHeaders): boolean => expected === undefined || headers['proxy-authorization'] === expected;

  const server = createServer((req, res) => forward(req, res, entries, authorized(req.headers), track));
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => tunnel(req, client, head, entries, authorized(req.headers), track));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: () => entries.map((entry) => ({ ...entry })),
    clearLog: () => void entries.splice(0),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An absolute-form request, sent on to its origin without the proxy's own headers. */
function forward(req: IncomingMessage, res: ServerResponse, entries: ProxyLogEntry[], allowed: boolean, track: (socket: Socket) => Socket): void {
  entries.push({ method: req.method ?? 'GET', url: req.url ?? '', authorized: allowed });
  if (!allowed) {
    res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"', 'content-length': '0' }).end();
    return;
  }
  const target = new URL(req.url ?? '');
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'proxy-authorization' && name !== 'proxy-connection'));
  const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: `${target.pathname}${target.search}`, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('socket', track);
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

/** A CONNECT: the client's bytes piped to host:port and back once the origin accepted the connection. */
function tunnel(req: IncomingMessage, client: Socket, head: Buffer, entries: ProxyLogEntry[], allowed: boolean, track: (socket: Socket) => Socket): void {
  const authority = req.url ?? '';
  const entry: TunnelEntry = { method: 'CONNECT', authority, authorized: allowed };
  entries.push(entry);
  track(client);
  if (!allowed) {
    client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  const { hostname, port } = new URL(`http://${authority}`);
  const upstream = track(connect(Number(port), hostname, () => {
    entry.upstreamPort = upstream.localPort;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  }));
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
}
