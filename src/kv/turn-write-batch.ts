import Redis, { Cluster } from 'ioredis';
import type { RedisClient } from './redis-client';

/**
 * Holds a Redis connection's socket writes until the end of the event-loop turn, so the
 * commands issued during one turn leave in one write. Under load the redirect issues many
 * click admissions per turn, and on this VM a socket write costs tens of microseconds.
 * On a Redis Cluster every master's connection is held, since a command's node is decided
 * inside ioredis (by its keys' slot): corking a socket no command uses that turn costs
 * nothing, and each node's commands still leave in one write.
 *
 * Why not ioredis's pipelines (or its `enableAutoPipelining`, which uses them): a Pipeline
 * object keeps its commands reachable long enough that nearly every command survives two
 * young-generation collections and is promoted, and collecting the promoted garbage made
 * the redirect's longest pauses (9 ms scavenges every 60 ms in `npm run bench`; with corked
 * writes instead, 1 ms). Auto-pipelining also keeps one batch in flight per connection, so a
 * command waits for the previous batch's replies before it is even sent.
 */
export class TurnWriteBatch {
  private isHeld = false;

  constructor(private readonly redis: RedisClient) {}

  /** Call just before issuing a command: its write joins the turn's single flush. */
  hold(): void {
    if (this.isHeld) return;
    const sockets = this.writableSockets();
    if (sockets.length === 0) return;
    this.isHeld = true;
    for (const socket of sockets) socket.cork();
    setImmediate(() => {
      this.isHeld = false;
      for (const socket of sockets) socket.uncork();
    });
  }

  /** A node not yet connected has no socket: its connection queues the command meanwhile. */
  private writableSockets(): Redis['stream'][] {
    const connections = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    const sockets: Redis['stream'][] = [];
    for (const { stream } of connections) {
      if (stream !== undefined && stream.writable) sockets.push(stream);
    }
    return sockets;
  }
}
