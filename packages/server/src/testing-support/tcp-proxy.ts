import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Cuts every open connection and refuses new ones: the target looks down. */
  close(): Promise<void>;
}

/** A loopback TCP proxy to `target`, so a test can take a database away from a running server. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
