import { EventEmitter } from 'node:events';
import type { RedisClient } from './redis-client';
import { RedisConnectionMonitor } from './redis-connection-monitor';

/** The part of an ioredis client the monitor reads: its events, its status, PING. */
class FakeClient extends EventEmitter {
  status = 'ready';
  pings = 0;
  isAnswering = false;

  ping(): Promise<string> {
    this.pings++;
    return this.isAnswering ? Promise.resolve('PONG') : new Promise(() => undefined);
  }
}

describe(RedisConnectionMonitor.name, () => {
  let client: FakeClient;
  let lines: string[];
  let monitor: RedisConnectionMonitor;
  let reachableAgain: number;

  beforeEach(() => {
    jest.useFakeTimers();
    client = new FakeClient();
    lines = [];
    const log = {
      log: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    };
    monitor = new RedisConnectionMonitor(
      client as unknown as RedisClient,
      log,
      'redis://cache:6379',
      500,
    );
    monitor.onReachableAgain(() => reachableAgain++);
    reachableAgain = 0;
    client.emit('ready');
  });
  afterEach(() => {
    monitor.stop();
    jest.useRealTimers();
  });

  it('should count a command timeout as an outage, logged once however many time out', () => {
    monitor.commandTimedOut();
    monitor.commandTimedOut();

    expect(monitor.isReachable()).toBe(false);
    expect(lines).toEqual([
      'Redis at redis://cache:6379 unreachable (no reply within 500 ms); serving without it until it answers a PING',
    ]);
  });

  it('should stay down while the probe PINGs go unanswered, and come back on the first answer', async () => {
    monitor.commandTimedOut();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(monitor.isReachable()).toBe(false);
    expect(client.pings).toBe(10);

    client.isAnswering = true;
    await jest.advanceTimersByTimeAsync(100);

    expect(monitor.isReachable()).toBe(true);
    expect(reachableAgain).toBe(1);
    expect(lines[1]).toBe('Redis at redis://cache:6379 reachable again after 1.1 s');
    // Probing ends with the outage.
    await jest.advanceTimersByTimeAsync(1_000);
    expect(client.pings).toBe(11);
  });

  it('should not PING a connection being re-established, whose ready event ends the outage', async () => {
    client.emit('close');
    client.status = 'reconnecting';
    await jest.advanceTimersByTimeAsync(1_000);
    expect(client.pings).toBe(0);
    expect(lines).toEqual([
      'Redis at redis://cache:6379 unreachable (connection closed); reconnecting with backoff',
    ]);

    client.status = 'ready';
    client.emit('ready');

    expect(monitor.isReachable()).toBe(true);
    expect(reachableAgain).toBe(1);
  });

  it('should end an outage an error began without closing the connection, on a PING answered', async () => {
    client.emit('error', new Error('Command queue state error'));
    expect(monitor.isReachable()).toBe(false);

    client.isAnswering = true;
    await jest.advanceTimersByTimeAsync(100);

    expect(monitor.isReachable()).toBe(true);
  });

  it('should neither report nor probe once stopped', async () => {
    monitor.stop();
    monitor.commandTimedOut();
    await jest.advanceTimersByTimeAsync(1_000);

    expect(monitor.isReachable()).toBe(true);
    expect(client.pings).toBe(0);
    expect(lines).toEqual([]);
  });
});
