import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';

/** A port bound before the server's own modules have loaded (`bindPort`). */
export interface BoundPort {
  readonly server: Server;
  /** Hands the requests to `listener` from now on, the ones that came before it first. */
  serve(listener: RequestListener): void;
}

/**
 * Binds `host:port` with a bare HTTP server, before the server's application loads, so that a port that
 * cannot be bound (in use, not permitted) stops `server run` before anything else happens, the embedded
 * store included. Requests that arrive before `serve` wait for it.
 */
export function bindPort(port: number, host: string): Promise<BoundPort> {
  const waiting: [IncomingMessage, ServerResponse][] = [];
  const hold = (request: IncomingMessage, response: ServerResponse) => {
    waiting.push([request, response]);
  };
  const server = createServer(hold);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        serve: (listener) => {
          server.off('request', hold).on('request', listener);
          for (const [request, response] of waiting.splice(0)) listener(request, response);
        },
      });
    });
  });
}
