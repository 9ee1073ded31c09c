import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ThrottledLogger } from '../logging/throttled-logger';
import type { TrustFunction } from './trust-proxy';

/** How often node:http looks for connections past their header deadline (its default: 30 s). */
const MAX_CHECK_INTERVAL_MS = 1_000;

/** A flood of refused connections is logged once per interval, with the count. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

export interface ConnectionLimits {
  /**
   * From a connection's first byte (or its opening, for one that sends nothing) to the end of
   * its request's headers; past it the client gets 408 and the connection is closed.
   */
  headersTimeoutMs: number;
  /** Open connections per client address, trusted proxies apart; 0: no cap. */
  maxConnectionsPerAddress: number;
}

export interface ConnectionPeers {
  /** TRUST_PROXY's trust function: a trusted proxy's connections carry many clients. */
  isTrusted: TrustFunction;
  /** The client an address counts as (rate-limit's clientAddressKey: IPv6 by its /64). */
  addressKeyOf: (address: string) => string;
}

/**
 * Bounds what idle or slow connections can hold of the server: node:http keeps a connection
 * that never finishes its headers for its 60 s headersTimeout, checked every 30 s, so about
 * 90 s, and accepts any number from one address. Here the headers are due within
 * `headersTimeoutMs` (checked every second at most), and a peer that is not a trusted proxy
 * may hold at most `maxConnectionsPerAddress` connections: one more is closed at once, before
 * it is read. Keep-alive connections between requests are governed by the keep-alive timeout,
 * not this one. Returns the server.
 */
export function applyConnectionLimits(
  server: Server,
  limits: ConnectionLimits,
  peers: ConnectionPeers,
): Server {
  server.headersTimeout = limits.headersTimeoutMs;
  // Read when the server starts listening; settable only through createServer's options in
  // the typings, and the server is Fastify's serverFactory's to create.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.min(MAX_CHECK_INTERVAL_MS, limits.headersTimeoutMs);
  if (limits.maxConnectionsPerAddress > 0) {
    const cap = new ConnectionsPerAddress(limits.maxConnectionsPerAddress, peers);
    server.on('connection', (socket: Socket) => cap.admit(socket));
  }
  return server;
}

/** Open connections counted per client address, as they open and close. */
class ConnectionsPerAddress {
  private readonly open = new Map<string, number>();
  private readonly refusals = new ThrottledLogger('HttpServer', REFUSAL_LOG_INTERVAL_MS);

  constructor(
    private readonly max: number,
    private readonly peers: ConnectionPeers,
  ) {}

  admit(socket: Socket): void {
    const address = socket.remoteAddress;
    // No address: the peer is already gone, and node:http sees the socket closed.
    if (address === undefined || this.peers.isTrusted(address, 0)) return;
    const key = this.peers.addressKeyOf(address);
    const count = this.open.get(key) ?? 0;
    if (count >= this.max) {
      socket.destroy();
      this.refusals.warn(
        'cap',
        `Closed a connection from an address that already holds ${this.max} (HTTP_MAX_CONNECTIONS_PER_ADDRESS)`,
      );
      return;
    }
    this.open.set(key, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    });
  }
}
