import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database that can stop forwarding without closing anything: connections
 * stay open, bytes sent to it are held, and nothing comes back, as a database behind a dead switch
 * or a frozen host looks to its clients. `resume` forwards again (held bytes included).
 */
export interface StallProxy {
  port: number;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStallProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<StallProxy> {
  let stalled = false;
  const links = new Set<{ flush(): void; destroy(): void }>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const held: [Socket, Buffer][] = [];
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (stalled) held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const link = {
      flush() {
        for (const [to, chunk] of held.splice(0)) to.write(chunk);
      },
      destroy() {
        client.destroy();
        upstream.destroy();
      },
    };
    links.add(link);
    const drop = () => {
      links.delete(link);
      link.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const link of links) link.flush();
    },
    async close() {
      for (const link of links) link.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
