import { Agent, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { startTestApp, TestApp } from '../support/test-app';

const CAP = 3;
const HEADERS_TIMEOUT_MS = 1_000;
/** The timeout, node:http's check interval (at most 1 s here), and room for a busy machine. */
const CUT_OFF_WITHIN_MS = HEADERS_TIMEOUT_MS + 1_000 + 2_000;

/** A raw connection to the app, followed to its end. */
interface RawConnection {
  socket: net.Socket;
  isClosed(): boolean;
  received(): string;
  /** Resolves when the connection ends, or after `withinMs` (the socket is then destroyed). */
  closedWithin(withinMs: number): Promise<void>;
}

async function connect(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
  // A connection the server closes may end in a reset: that is the end the tests wait for.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    isClosed: () => isClosed,
    received: () => data,
    closedWithin: async (withinMs) => {
      await Promise.race([closed, delay(withinMs)]);
      socket.destroy();
    },
  };
}

/** GET /v1/health over a connection already open; resolves with the status line. */
async function statusLineOver(connection: RawConnection): Promise<string> {
  const before = connection.received().length;
  connection.socket.write('GET /v1/health HTTP/1.1\r\nHost: linkpilot.test\r\n\r\n');
  for (let i = 0; i < 100 && !connection.received().slice(before).includes('\r\n'); i++) {
    await delay(20);
  }
  return connection.received().slice(before).split('\r\n')[0];
}

async function listeningApp(env: Record<string, string>): Promise<{ app: TestApp; port: number }> {
  const app = await startTestApp(env);
  await app.app.listen(0, '127.0.0.1');
  return { app, port: (app.app.getHttpServer().address() as AddressInfo).port };
}

describe('Connection limits (e2e)', () => {
  describe(`with HTTP_MAX_CONNECTIONS_PER_ADDRESS=${CAP} and HTTP_HEADERS_TIMEOUT_MS=${HEADERS_TIMEOUT_MS}`, () => {
    let t: TestApp;
    let port: number;
    const opened: RawConnection[] = [];

    beforeAll(async () => {
      // Loopback is no trusted proxy here: the test's connections are one client's.
      ({ app: t, port } = await listeningApp({
        TRUST_PROXY: 'none',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      }));
    });
    afterEach(async () => {
      for (const connection of opened.splice(0)) connection.socket.destroy();
      // Until the server has seen them close, they still count against the cap.
      await delay(200);
    });
    afterAll(() => t.close());

    const open = async (): Promise<RawConnection> => {
      const connection = await connect(port);
      opened.push(connection);
      return connection;
    };

    it('should close at once the connections of one address past the cap, and admit one when a slot frees', async () => {
      for (let i = 0; i < CAP + 2; i++) await open();
      await delay(300);

      const held = opened.filter((connection) => !connection.isClosed());
      expect(held).toHaveLength(CAP);
      // The connections kept are served; the ones closed were never read.
      expect(await statusLineOver(held[0])).toBe('HTTP/1.1 200 OK');
      for (const refused of opened.filter((connection) => connection.isClosed())) {
        expect(refused.received()).toBe('');
      }

      held[0].socket.destroy();
      await delay(100);
      const next = await open();
      await delay(300);
      expect(next.isClosed()).toBe(false);
      expect(await statusLineOver(next)).toBe('HTTP/1.1 200 OK');
    });

    it('should answer 408 and close a connection that sends its headers slower than the timeout', async () => {
      const slow = await open();
      const startedAt = Date.now();
      slow.socket.write('GET /v1/health HTTP/1.1\r\n');
      const trickle = setInterval(() => slow.socket.write('X-Slow: a\r\n'), 100);
      try {
        await slow.closedWithin(CUT_OFF_WITHIN_MS + 1_000);
      } finally {
        clearInterval(trickle);
      }
      const elapsedMs = Date.now() - startedAt;

      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(elapsedMs).toBeLessThan(CUT_OFF_WITHIN_MS);
    });

    it('should close a connection that never sends a byte once the timeout passes', async () => {
      const silent = await open();
      const startedAt = Date.now();

      await silent.closedWithin(CUT_OFF_WITHIN_MS + 1_000);

      expect(Date.now() - startedAt).toBeLessThan(CUT_OFF_WITHIN_MS);
    });

    it('should keep a keep-alive connection idle between requests for longer than the header timeout', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const fetchHealth = (): Promise<{ status: number; socketPort: number }> =>
        new Promise((resolve, reject) => {
          get({ host: '127.0.0.1', port, path: '/v1/health', agent }, (response) => {
            const socketPort = response.socket.localPort ?? -1;
            response.resume();
            response.on('end', () => resolve({ status: response.statusCode ?? 0, socketPort }));
          }).on('error', reject);
        });
      try {
        const first = await fetchHealth();
        await delay(HEADERS_TIMEOUT_MS * 2);
        const second = await fetchHealth();

        expect([first.status, second.status]).toEqual([200, 200]);
        // The same connection: the header timeout did not cut it while idle.
        expect(second.socketPort).toBe(first.socketPort);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('behind a trusted proxy', () => {
    it('should not cap the connections of a trusted proxy, which carry many clients', async () => {
      const { app, port } = await listeningApp({
        TRUST_PROXY: 'loopback',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
      });
      const connections: RawConnection[] = [];
      try {
        for (let i = 0; i < CAP + 2; i++) connections.push(await connect(port));
        await delay(300);

        expect(connections.filter((connection) => connection.isClosed())).toEqual([]);
      } finally {
        for (const connection of connections) connection.socket.destroy();
        await app.close();
      }
    });
  });
});
