// Serves a loopback HTTP server (the emulator) over TLS, with a certificate made for the test by
// openssl (self-signed, for IP 127.0.0.1, one day): each connection is decrypted and its bytes
// passed to the plain port. The peer port of every connection is noted, so a test can tell that
// each came through a proxy's tunnel. A spawned CLI trusts the certificate through
// NODE_EXTRA_CA_CERTS, as a run behind an intercepting corporate proxy trusts the proxy's.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { createServer } from 'node:tls';
import { promisify } from 'node:util';

export interface TlsFront {
  /** The plain base URL with https:// and the front's port. */
  baseUrl: string;
  /** The certificate (PEM) to trust. */
  certFile: string;
  /** The remote port of every connection the front accepted, in order. */
  peerPorts(): number[];
  close(): Promise<void>;
}

async function makeCertificate(dir: string): Promise<{ keyFile: string; certFile: string }> {
  const keyFile = path.join(dir, 'test-key.pem');
  const certFile = path.join(dir, 'test-cert.pem');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
  try {
    await promisify(execFile)('openssl', args);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'the TLS test needs the openssl command (to make a certificate for 127.0.0.1) and it is not on PATH' : `openssl could not make the test certificate: ${(error as Error).message}`);
  }
  return { keyFile, certFile };
}

export async function startTlsFront(plainBaseUrl: string, dir: string): Promise<TlsFront> {
  const plain = new URL(plainBaseUrl);
  const { keyFile, certFile } = await makeCertificate(dir);
  const peers: number[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server = createServer({ key: await readFile(keyFile), cert: await readFile(certFile) }, (secure) => {
    peers.push(secure.remotePort ?? 0);
    track(secure);
    const upstream = connect(Number(plain.port), plain.hostname);
    track(upstream);
    secure.pipe(upstream).pipe(secure);
    upstream.on('error', () => secure.destroy());
    secure.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}${plain.pathname}`,
    certFile,
    peerPorts: () => [...peers],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
