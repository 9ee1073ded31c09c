import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, Socket } from 'node:net';
import type { ErrorBody } from '../errors/all-exceptions.filter';
import { ERROR_STATUS, ErrorCode } from '../errors/error-code';
import { newUlid } from '../ids';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * How long after closing began the connections with no answer under way are closed. A
 * client's next request on a keep-alive connection may already be on its way when the
 * server sees the connection idle; closing it then would reset that request. Given this
 * long, a client that is sending gets its 503 with `Connection: close` instead, and only the
 * silent connections (idle, or opened and never used) are cut.
 */
const IDLE_CONNECTION_GRACE_MS = 500;

/**
 * node:http's keep-alive timeout once closing (it adds its own 1 s margin): a connection
 * whose answer had left before closing began but ends later is let go a second after it.
 */
const CLOSING_KEEP_ALIVE_TIMEOUT_MS = 1;

const SHUTTING_DOWN_MESSAGE = 'This server is shutting down; send the request again.';

/** node:http's link from a socket to the answer it is writing (what its own closeIdleConnections reads). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * How the HTTP server stops (SIGTERM, or any app.close()) without refusing or cutting off a
 * request it has taken. Once closing:
 * - no new connection is accepted;
 * - a request arriving on a connection still open is answered 503 SHUTTING_DOWN with
 *   `Connection: close`, in the error envelope, ahead of both fronts of /r/ and of Fastify
 *   (what Fastify's own `return503OnClosing` does for its routes, there in its own body
 *   shape), so a client or load balancer sends it again to another server;
 * - requests in flight, on either front, are answered as usual, with `Connection: close`
 *   when their headers have not left yet, so every click admission under way completes (and
 *   its click reaches the stream) before the modules stop;
 * - connections with no answer under way are closed after IDLE_CONNECTION_GRACE_MS, so no
 *   idle keep-alive connection holds the exit open until its keep-alive timeout.
 * The request listener pays one boolean test per request; connections are followed as they
 * open and close, not per request.
 */
export class ShutdownGate {
  private isClosing = false;
  private readonly connections = new Set<HttpSocket>();

  /** The server's request listener behind the gate. */
  guard(listener: RequestListener): RequestListener {
    return (request, response) => {
      if (this.isClosing) refuse(response);
      else listener(request, response);
    };
  }

  /** Follows the server's connections, so that closing can reach each of them. */
  watch(server: Server): Server {
    server.on('connection', (socket: HttpSocket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    return server;
  }

  /** Closes a watched `server` as above; resolves once its last connection has ended. */
  close(server: Server): Promise<void> {
    this.isClosing = true;
    server.keepAliveTimeout = CLOSING_KEEP_ALIVE_TIMEOUT_MS;
    for (const socket of this.connections) {
      const answer = socket._httpMessage;
      if (answer && !answer.headersSent) answer.setHeader('connection', 'close');
    }
    return new Promise((resolve) => {
      const silentConnections = setTimeout(() => {
        for (const socket of this.connections) {
          if (!socket._httpMessage) socket.destroy();
        }
      }, IDLE_CONNECTION_GRACE_MS);
      // net's close, not http's: since Node 19 http's also destroys, at that instant, every
      // connection that looks idle, including one whose next request is on its way. The
      // callback runs once every connection has ended (with an error, ignored, when the
      // server was not listening).
      NetServer.prototype.close.call(server, () => {
        clearTimeout(silentConnections);
        resolve();
      });
    });
  }
}

function refuse(response: ServerResponse): void {
  const requestId = newUlid();
  const body: ErrorBody = {
    success: false,
    error: { code: ErrorCode.SHUTTING_DOWN, message: SHUTTING_DOWN_MESSAGE, requestId },
  };
  const json = JSON.stringify(body);
  response.writeHead(ERROR_STATUS[ErrorCode.SHUTTING_DOWN], {
    connection: 'close',
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
    'cache-control': 'no-store',
    // What every answer carries (http-hooks.ts, RedirectFronts).
    'x-request-id': requestId,
    vary: 'Origin',
  });
  response.end(json);
}
