import * as net from 'node:net';
import * as path from 'node:path';

/**
 * A loopback TCP proxy in front of the test database, so a test can cut the database off
 * from a running app (`cut()`) the way a crash or a network partition would.
 */
export interface TcpProxy {
  url: string;
  cut(): Promise<void>;
}

function upstreamOf(databaseUrl: string): net.NetConnectOpts {
  const url = new URL(databaseUrl);
  const socketDir = url.searchParams.get('host');
  if (socketDir !== null) return { path: path.join(socketDir, `.s.PGSQL.${url.port || '5432'}`) };
  return { host: url.hostname, port: Number(url.port || '5432') };
}

export async function startDatabaseProxy(databaseUrl: string): Promise<TcpProxy> {
  const upstream = upstreamOf(databaseUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = net.connect(upstream);
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(target).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(databaseUrl);
  url.searchParams.delete('host');
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
