import type Redis from 'ioredis';

/**
 * Holds a Redis connection's socket writes until the end of the event-loop turn, so the
 * commands issued during one turn leave in one write. Under load the redirect issues many
 * click admissions per turn, and on this VM a socket write costs tens of microseconds.
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

  constructor(private readonly redis: Redis) {}

  /** Call just before issuing a command: its write joins the turn's single flush. */
  hold(): void {
    if (this.isHeld) return;
    const socket = this.redis.stream;
    if (socket === undefined || !socket.writable) return;
    this.isHeld = true;
    socket.cork();
    setImmediate(() => {
      this.isHeld = false;
      socket.uncork();
    });
  }
}
