import { Registry } from 'prom-client';
import {
  BackgroundGaugeSources,
  ClickStreamState,
  DatabasePool,
  KvConnection,
  ReadReplicaGauge,
  registerBackgroundGauges,
} from './background-gauges';

/** The sample lines of a scrape (no HELP or TYPE), in order. */
const samplesOf = (text: string): string[] =>
  text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('registerBackgroundGauges', () => {
  let states: Record<string, ClickStreamState>;
  let reads: string[];
  let read: (stream: string) => Promise<ClickStreamState>;
  let isReachable: boolean;
  let pool: DatabasePool | null;
  let connections: KvConnection[];
  let fxAgeHours: number | null;
  let replicas: ReadReplicaGauge[];
  let registry: Registry;

  beforeEach(() => {
    states = {
      'clicks:{e0}': { length: 5, group: { pending: 2, lag: 3 } },
      'clicks:{e1}': { length: 0, group: null },
      'clicks:{e2}': { length: 7, group: { pending: 1, lag: null } },
    };
    reads = [];
    read = (stream) => {
      reads.push(stream);
      return Promise.resolve(states[stream]);
    };
    isReachable = true;
    pool = { totalCount: 4, idleCount: 1, waitingCount: 2, options: { max: 10 } };
    connections = [
      { client: 'command', isUp: true, inFlight: 3, offline: 0 },
      { client: 'subscriber', isUp: false, inFlight: 0, offline: 1 },
    ];
    fxAgeHours = 30.5;
    replicas = [];
    registry = new Registry();
    const sources: BackgroundGaugeSources = {
      clickStreams: {
        streams: Object.keys(states),
        isReachable: () => isReachable,
        read: (stream) => read(stream),
      },
      databasePool: () => pool,
      kvConnections: () => connections,
      clicksWritten: () => 42,
      fxAgeHours: () => fxAgeHours,
      readReplicas: () => replicas,
    };
    registerBackgroundGauges(registry, sources, { streamReadTimeoutMs: 50 });
  });

  const scrape = async (): Promise<string[]> => samplesOf(await registry.metrics());
  const streamSamples = (samples: string[]): string[] =>
    samples.filter((line) => line.startsWith('linkpilot_click_stream_'));

  it('should give each stream its length, and its lag and pending entries where known', async () => {
    const samples = await scrape();
    expect(streamSamples(samples)).toEqual([
      'linkpilot_click_stream_length{stream="clicks:{e0}"} 5',
      'linkpilot_click_stream_length{stream="clicks:{e1}"} 0',
      'linkpilot_click_stream_length{stream="clicks:{e2}"} 7',
      'linkpilot_click_stream_consumer_lag{stream="clicks:{e0}"} 3',
      'linkpilot_click_stream_pending{stream="clicks:{e0}"} 2',
      'linkpilot_click_stream_pending{stream="clicks:{e2}"} 1',
    ]);
    // One read of each stream for the three gauges of a scrape.
    expect(reads).toEqual(Object.keys(states));
  });

  it('should read the streams again at the next scrape, with what they hold then', async () => {
    await scrape();
    states['clicks:{e0}'] = { length: 1, group: { pending: 0, lag: 1 } };
    const samples = await scrape();
    expect(samples).toContain('linkpilot_click_stream_length{stream="clicks:{e0}"} 1');
    expect(samples).toContain('linkpilot_click_stream_pending{stream="clicks:{e0}"} 0');
    expect(reads).toHaveLength(6);
  });

  it('should leave the stream series out, asking nothing, while the store is lost', async () => {
    await scrape();
    isReachable = false;
    const samples = await scrape();
    expect(streamSamples(samples)).toEqual([]);
    expect(reads).toHaveLength(3);
    expect(samples).toContain('linkpilot_redis_connection_up{client="command"} 1');
  });

  it('should leave the stream series out when a read fails, and still answer the scrape', async () => {
    read = (stream) =>
      stream === 'clicks:{e1}'
        ? Promise.reject(new Error('Connection is closed.'))
        : Promise.resolve(states[stream]);
    const samples = await scrape();
    expect(streamSamples(samples)).toEqual([]);
    expect(samples).toContain('linkpilot_db_pool_waiting_requests 2');
  });

  it('should not wait past its timeout for a store that does not answer', async () => {
    read = () => new Promise<ClickStreamState>(() => undefined);
    const startedAt = performance.now();
    const samples = await scrape();
    expect(performance.now() - startedAt).toBeLessThan(1000);
    expect(streamSamples(samples)).toEqual([]);
  });

  it("should show the database pool's connections, bound and waiting requests", async () => {
    const samples = await scrape();
    expect(samples).toContain('linkpilot_db_pool_connections{state="in_use"} 3');
    expect(samples).toContain('linkpilot_db_pool_connections{state="idle"} 1');
    expect(samples).toContain('linkpilot_db_pool_max_connections 10');
    expect(samples).toContain('linkpilot_db_pool_waiting_requests 2');
  });

  it('should leave the pool series out while there is no pool', async () => {
    pool = null;
    const samples = await scrape();
    expect(samples.filter((line) => line.startsWith('linkpilot_db_pool_'))).toEqual([]);
  });

  it("should show each Redis client's state and queued commands, none for the in-process store", async () => {
    let samples = await scrape();
    expect(samples.filter((line) => line.startsWith('linkpilot_redis_'))).toEqual([
      'linkpilot_redis_connection_up{client="command"} 1',
      'linkpilot_redis_connection_up{client="subscriber"} 0',
      'linkpilot_redis_commands_queued{client="command",queue="in_flight"} 3',
      'linkpilot_redis_commands_queued{client="command",queue="offline"} 0',
      'linkpilot_redis_commands_queued{client="subscriber",queue="in_flight"} 0',
      'linkpilot_redis_commands_queued{client="subscriber",queue="offline"} 1',
    ]);
    connections = [];
    samples = await scrape();
    expect(samples.filter((line) => line.startsWith('linkpilot_redis_'))).toEqual([]);
  });

  it('should show the clicks written and the FX age, the age absent before any rates', async () => {
    let samples = await scrape();
    expect(samples).toContain('linkpilot_click_consumer_written_total 42');
    expect(samples).toContain('linkpilot_fx_rates_age_hours 30.5');
    fxAgeHours = null;
    samples = await scrape();
    expect(samples.filter((line) => line.startsWith('linkpilot_fx_'))).toEqual([]);
  });

  it("should show each read replica's lag where measured, and whether the reads go there", async () => {
    const replicaSamples = async (): Promise<string[]> =>
      (await scrape()).filter((line) => line.startsWith('linkpilot_db_read_replica_'));
    expect(await replicaSamples()).toEqual([]);
    replicas = [
      { replica: 1, isInUse: true, lagSeconds: 0.004 },
      { replica: 2, isInUse: false, lagSeconds: 41.5 },
      { replica: 3, isInUse: false, lagSeconds: null },
    ];
    expect(await replicaSamples()).toEqual([
      'linkpilot_db_read_replica_lag_seconds{replica="1"} 0.004',
      'linkpilot_db_read_replica_lag_seconds{replica="2"} 41.5',
      'linkpilot_db_read_replica_in_use{replica="1"} 1',
      'linkpilot_db_read_replica_in_use{replica="2"} 0',
      'linkpilot_db_read_replica_in_use{replica="3"} 0',
    ]);
  });
});
