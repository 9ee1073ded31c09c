import { Agent, createServer, get, IncomingMessage, Server } from 'node:http';
import { connect, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ShutdownGate } from './shutdown-gate';

/**
 * The gate on a real server and real keep-alive connections: what a request gets before and
 * after closing began, and that closing ends once the last connection has, idle ones included.
 */
describe(ShutdownGate.name, () => {
  let gate: ShutdownGate;
  let server: Server;
  let port: number;
  /** Answers of the request listener behind the gate are held until released. */
  let releaseSlow: () => void;

  beforeEach(async () => {
    gate = new ShutdownGate();
    const slowAnswered = new Promise<void>((resolve) => (releaseSlow = resolve));
    server = gate.watch(
      createServer(
        gate.guard((request, response) => {
          const answer = () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          if (request.url === '/slow') void slowAnswered.then(answer);
          else answer();
        }),
      ),
    );
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    releaseSlow();
    await gate.close(server);
  });

  interface Answer {
    status: number;
    headers: IncomingMessage['headers'];
    body: string;
  }

  const request = (path: string, agent: Agent): Promise<Answer> =>
    new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      }).on('error', reject);
    });

  const openConnection = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });

  const closedBy = (socket: Socket): Promise<void> =>
    new Promise((resolve) => {
      if (socket.destroyed) resolve();
      else socket.once('close', () => resolve());
    });

  it('should let every request through until closing begins', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });

    const answer = await request('/', agent);

    expect(answer.status).toBe(200);
    expect(answer.headers.connection).toBe('keep-alive');
    agent.destroy();
  });

  it('should answer a request in flight as usual, with Connection: close', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const inFlight = request('/slow', agent);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const closed = gate.close(server);
    releaseSlow();
    const answered = await inFlight;

    expect(answered.status).toBe(200);
    expect(answered.body).toBe('ok');
    expect(answered.headers.connection).toBe('close');
    await closed;
    agent.destroy();
  });

  it('should answer a request on a keep-alive connection still open 503 SHUTTING_DOWN with Connection: close', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await request('/', agent);

    const closed = gate.close(server);
    const refused = await request('/', agent);

    expect(refused.status).toBe(503);
    expect(refused.headers.connection).toBe('close');
    expect(refused.headers['x-request-id']).toMatch(/^[0-9A-Z]{26}$/);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      error: {
        code: 'SHUTTING_DOWN',
        message: expect.any(String),
        requestId: refused.headers['x-request-id'],
      },
    });
    await closed;
    agent.destroy();
  });

  it('should close silent connections and refuse new ones, then end', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    await request('/', agent);
    const neverUsed = await openConnection();
    const startedAt = Date.now();

    // Resolves only once the server's last connection has ended: the agent's idle one too.
    await gate.close(server);

    await closedBy(neverUsed);
    // The grace for a request on its way, not the keep-alive timeout (a minute here).
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    await expect(openConnection()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });
});
