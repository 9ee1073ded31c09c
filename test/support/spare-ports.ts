import * as net from 'node:net';

/**
 * Free loopback ports for servers a test starts itself, all held at once while chosen so that
 * no two are the same.
 */
export async function sparePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer());
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
  return ports;
}

/** One free loopback port. */
export async function sparePort(): Promise<number> {
  const [port] = await sparePorts(1);
  return port;
}
