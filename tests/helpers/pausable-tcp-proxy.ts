/**
 * A loopback TCP proxy that a test can cut: `cut()` drops every open connection and refuses new ones
 * (as a database that went away does), `restore()` lets connections through again. Used to give a
 * server process a database outage without touching the shared PostgreSQL server.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface PausableTcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startPausableTcpProxy(upstreamPort: number): Promise<PausableTcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(upstreamPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The proxy has no TCP port.');
  return {
    port: address.port,
    cut: () => {
      refusing = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      refusing = false;
    },
    close: async () => {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
