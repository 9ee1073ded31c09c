import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppMetrics } from './app-metrics';

/** An internal GET route's answer to the request's query. */
export type InternalRoute = (query: URLSearchParams) => Promise<{ status: number; body: string }>;

/**
 * GET /metrics in the Prometheus text format on its own port (METRICS_PORT), apart from the
 * API's: no authentication, never exposed through the public listener, and bound to loopback
 * unless METRICS_HOST names another interface (config/env.ts). Other modules add their
 * internal GET routes here (addRoute), for the infrastructure beside the service, never the
 * public. Anything else is 404.
 */
export class MetricsServer {
  private server: Server | null = null;
  private readonly routes = new Map<string, InternalRoute>();

  constructor(private readonly metrics: AppMetrics) {}

  async listen(port: number, host: string): Promise<void> {
    const server = createServer((request, response) => {
      const [path, query = ''] = (request.url ?? '').split('?', 2);
      const route = request.method === 'GET' ? this.routes.get(path) : undefined;
      if (route !== undefined) {
        answerRoute(route, query, response);
        return;
      }
      if (request.method !== 'GET' || path !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
        return;
      }
      this.metrics.render().then(
        (text) => {
          response.writeHead(200, { 'content-type': this.metrics.contentType() }).end(text);
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`);
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
  }

  /** Serves GET `path` (with any query) on this listener. */
  addRoute(path: string, route: InternalRoute): void {
    this.routes.set(path, route);
  }

  /** The bound port (METRICS_PORT=0 picks a free one), or null when not listening. */
  port(): number | null {
    return this.address()?.port ?? null;
  }

  /** The bound interface and port, or null when not listening. */
  address(): AddressInfo | null {
    return this.server === null ? null : (this.server.address() as AddressInfo);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function answerRoute(route: InternalRoute, query: string, response: ServerResponse): void {
  route(new URLSearchParams(query)).then(
    ({ status, body }) => {
      response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    },
    (error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`);
    },
  );
}
