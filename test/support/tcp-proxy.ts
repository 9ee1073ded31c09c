import * as net from 'node:net';
import * as path from 'node:path';

/**
 * A loopback TCP proxy in front of the test database, so a test can cut the database off
 * from a running app (`cut()`) the way a crash or a network partition would, or stall it
 * (`stall()`: connections stay open and new ones are accepted, but nothing is answered), the
 * way an overloaded or hung database does.
 */
export interface TcpProxy {
  url: string;
  cut(): Promise<void>;
  stall(): void;
  /** The database reachable again, on the same port: after a cut or a stall. */
  restore(): Promise<void>;
  close(): Promise<void>;
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
  const pairs = new Set<[net.Socket, net.Socket]>();
  let isStalled = false;
  const server = net.createServer((client) => {
    client.on('error', () => client.destroy());
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    // A stalled database accepts the connection and never says a word.
    if (isStalled) return;
    const target = net.connect(upstream);
    target.on('error', () => target.destroy());
    sockets.add(target);
    target.on('close', () => sockets.delete(target));
    client.pipe(target).pipe(client);
    pairs.add([client, target]);
  });
  const listen = (onPort: number): Promise<void> =>
    new Promise<void>((resolve) => server.listen(onPort, '127.0.0.1', resolve));
  const close = async (): Promise<void> => {
    const closed = server.listening
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(databaseUrl);
  url.searchParams.delete('host');
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    stall: () => {
      isStalled = true;
      for (const [client, target] of pairs) {
        client.unpipe(target);
        target.unpipe(client);
        client.on('data', () => undefined);
        target.on('data', () => undefined);
      }
    },
    cut: close,
    restore: async () => {
      // Stalled connections are dropped: the pools notice and connect afresh.
      isStalled = false;
      for (const socket of sockets) socket.destroy();
      pairs.clear();
      if (!server.listening) await listen(port);
    },
    close,
  };
}
