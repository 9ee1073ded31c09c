import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  host: string | undefined;
}

/** Answers one request; `rest` is the path (and query) after the scenario's prefix. */
export type ScenarioHandler = (
  request: http.IncomingMessage,
  response: http.ServerResponse,
  rest: string,
) => void;

/**
 * A real HTTP server on 127.0.0.1 (port 0) for probes to reach, through
 * PROBE_TARGET_OVERRIDE or a loopback URL. Each test registers its own scenario and gets a
 * fresh path prefix `/t/<n>`, so tests sharing the server never see each other's requests.
 */
export class ProbeTargetServer {
  private readonly scenarios = new Map<string, ScenarioHandler>();
  private readonly received: ReceivedRequest[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextToken = 1;

  private constructor(private readonly server: http.Server) {
    server.on('request', (request, response) => this.handle(request, response));
  }

  static async start(): Promise<ProbeTargetServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new ProbeTargetServer(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Registers a scenario and returns its path prefix (`/t/<n>`). */
  addScenario(handler: ScenarioHandler): string {
    const prefix = `/t/${this.nextToken++}`;
    this.scenarios.set(prefix, handler);
    return prefix;
  }

  /** Requests received under a scenario's prefix, in arrival order. */
  requestsTo(prefix: string): ReceivedRequest[] {
    return this.received.filter((request) => request.path.startsWith(`${prefix}/`));
  }

  allRequests(): ReceivedRequest[] {
    return [...this.received];
  }

  /** Runs `reply` after `ms`, unless the server closes first. */
  later(ms: number, reply: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      reply();
    }, ms);
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const path = request.url ?? '/';
    this.received.push({ method: request.method ?? '', path, host: request.headers.host });
    const prefix = /^\/t\/\d+/.exec(path)?.[0];
    const scenario = prefix === undefined ? undefined : this.scenarios.get(prefix);
    if (prefix === undefined || scenario === undefined) {
      response.writeHead(404).end();
      return;
    }
    scenario(request, response, path.slice(prefix.length));
  }
}

/** Holds replies while closed; a test closes it to observe a state mid-probe. */
export class ReplyGate {
  private isOpen = true;
  private readonly held: (() => void)[] = [];

  close(): void {
    this.isOpen = false;
  }

  open(): void {
    this.isOpen = true;
    for (const reply of this.held.splice(0)) reply();
  }

  /** Replies now when open, else once opened. */
  whenOpen(reply: () => void): void {
    if (this.isOpen) reply();
    else this.held.push(reply);
  }

  get heldCount(): number {
    return this.held.length;
  }
}
