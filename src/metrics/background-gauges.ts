import { Gauge, Registry } from 'prom-client';

/** A click stream and its consumer group, as the key-value store tells them. */
export interface ClickStreamState {
  length: number;
  /** Null when the group does not exist (yet): no consumer has started on this store. */
  group: { pending: number; lag: number | null } | null;
}

/** The PostgreSQL pool's counts (node-postgres's Pool exposes them as these names). */
export interface DatabasePool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max?: number };
}

/** One connection of the key-value store (none in process). */
export interface KvConnection {
  client: string;
  isUp: boolean;
  inFlight: number;
  offline: number;
}

/** Where the gauges read their values; each is read only when /metrics is scraped. */
export interface BackgroundGaugeSources {
  clickStreams: {
    streams: readonly string[];
    /** False while the store is known lost: the scrape then asks it nothing. */
    isReachable(): boolean;
    read(stream: string): Promise<ClickStreamState>;
  };
  /** The pool behind the ORM, or null when there is none (not connected yet). */
  databasePool(): DatabasePool | null;
  kvConnections(): readonly KvConnection[];
}

/** A scrape waits at most this long for the streams; past it, their series are left out. */
export const STREAM_READ_TIMEOUT_MS = 1000;

/**
 * Gauges of the background work's queues and connections, each computed when scraped: the
 * click streams' length, lag and pending entries (read from the store, all streams at once,
 * one read shared by the three gauges of a scrape), the database pool's connections, and
 * the store's connections and queued commands. Nothing is counted on the hot path. A store
 * that is lost, fails or is slow to answer leaves the stream series out of that scrape,
 * never the scrape itself.
 */
export function registerBackgroundGauges(
  registry: Registry,
  sources: BackgroundGaugeSources,
  { streamReadTimeoutMs = STREAM_READ_TIMEOUT_MS } = {},
): void {
  const readStreams = sharedWhileInFlight(() =>
    readClickStreams(sources.clickStreams, streamReadTimeoutMs),
  );
  const streamGauge = (
    name: string,
    help: string,
    value: (state: ClickStreamState) => number | null | undefined,
  ): void => {
    new Gauge({
      name,
      help,
      labelNames: ['stream'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const [stream, state] of await readStreams()) {
          const measured = value(state);
          if (measured !== null && measured !== undefined) this.set({ stream }, measured);
        }
      },
    });
  };
  streamGauge(
    'linkpilot_click_stream_length',
    'Entries in each click stream (XLEN): not yet delivered, pending, or acknowledged and not yet trimmed',
    (state) => state.length,
  );
  streamGauge(
    'linkpilot_click_stream_consumer_lag',
    'Entries of each click stream not yet delivered to the click consumer group',
    (state) => state.group?.lag,
  );
  streamGauge(
    'linkpilot_click_stream_pending',
    'Entries of each click stream delivered to a consumer and not yet acknowledged',
    (state) => state.group?.pending,
  );

  const poolGauge = (
    name: string,
    help: string,
    labelNames: string[],
    samples: (pool: DatabasePool) => [Record<string, string>, number][],
  ): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        // An unlabelled gauge resets to 0: removed, its one series is absent until set.
        if (labelNames.length === 0) this.remove();
        const pool = sources.databasePool();
        if (pool === null) return;
        for (const [labels, value] of samples(pool)) this.set(labels, value);
      },
    });
  };
  poolGauge(
    'linkpilot_db_pool_connections',
    "Connections of this process's PostgreSQL pool: in_use (by a query or transaction) or idle",
    ['state'],
    (pool) => [
      [{ state: 'in_use' }, pool.totalCount - pool.idleCount],
      [{ state: 'idle' }, pool.idleCount],
    ],
  );
  poolGauge(
    'linkpilot_db_pool_max_connections',
    "The PostgreSQL pool's bound (DATABASE_POOL_SIZE)",
    [],
    (pool) => (pool.options.max === undefined ? [] : [[{}, pool.options.max]]),
  );
  poolGauge(
    'linkpilot_db_pool_waiting_requests',
    'Queries and transactions waiting for a connection of the PostgreSQL pool',
    [],
    (pool) => [[{}, pool.waitingCount]],
  );

  new Gauge({
    name: 'linkpilot_redis_connection_up',
    help: 'Whether each Redis client is connected and ready (1) or not (0)',
    labelNames: ['client'],
    registers: [registry],
    collect() {
      this.reset();
      for (const connection of sources.kvConnections()) {
        this.set({ client: connection.client }, connection.isUp ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'linkpilot_redis_commands_queued',
    help: 'Commands of each Redis client waiting: in_flight (sent, awaiting the reply) or offline (awaiting a connection)',
    labelNames: ['client', 'queue'],
    registers: [registry],
    collect() {
      this.reset();
      for (const connection of sources.kvConnections()) {
        this.set({ client: connection.client, queue: 'in_flight' }, connection.inFlight);
        this.set({ client: connection.client, queue: 'offline' }, connection.offline);
      }
    },
  });
}

/**
 * Every stream's state, or none: when the store is lost, fails, or has not answered within
 * `timeoutMs` (a command left behind then settles unheard: the race has handled it).
 */
export async function readClickStreams(
  source: BackgroundGaugeSources['clickStreams'],
  timeoutMs: number,
): Promise<[string, ClickStreamState][]> {
  if (!source.isReachable()) return [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  const states = Promise.all(
    source.streams.map(async (stream): Promise<[string, ClickStreamState]> => [
      stream,
      await source.read(stream),
    ]),
  );
  try {
    return (await Promise.race([states, deadline])) ?? [];
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The calls made while one is in flight share its promise: the gauges of one scrape are
 * collected together, and read the store once between them.
 */
function sharedWhileInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    if (inFlight === null) {
      inFlight = read().finally(() => {
        inFlight = null;
      });
    }
    return inFlight;
  };
}
