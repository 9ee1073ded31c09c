import { Counter, Gauge, Registry } from 'prom-client';
import { withinDeadline } from '../common/async/within-deadline';

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

/** One read replica of the analytics reads (DATABASE_READ_URL), as its last check found it. */
export interface ReadReplicaGauge {
  /** Its place in DATABASE_READ_URL, from 1. */
  replica: number;
  /** Whether the analytics reads go there (it keeps up within DATABASE_READ_MAX_LAG_S). */
  isInUse: boolean;
  /** Null when not measured (down, not checked yet). */
  lagSeconds: number | null;
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
  /** Click records this process's consumer has written to PostgreSQL, a running total. */
  clicksWritten(): number;
  /** Age of the FX rates held in memory (hours), null before any are loaded. */
  fxAgeHours(): number | null;
  /** The read replicas (none unless DATABASE_READ_URL is set). */
  readReplicas(): readonly ReadReplicaGauge[];
}

/** A scrape waits at most this long for the streams; past it, their series are left out. */
export const STREAM_READ_TIMEOUT_MS = 1000;

/**
 * The metrics of the background work, each computed when scraped: the click streams' length,
 * lag and pending entries (read from the store, all streams at once, one read shared by the
 * three gauges of a scrape), the database pool's connections, the store's connections and
 * queued commands, the clicks the consumer wrote and the age of the FX rates. Nothing is
 * counted on the hot path. A store that is lost, fails or is slow to answer leaves the stream
 * series out of that scrape, never the scrape itself.
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

  /** An unlabelled gauge, absent while `read` has no value (reset alone would show 0). */
  const optionalGauge = (name: string, help: string, read: () => number | null): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const value = read();
        if (value === null) {
          this.reset();
          this.remove();
        } else this.set(value);
      },
    });
  };
  new Gauge({
    name: 'linkpilot_db_pool_connections',
    help: "Connections of this process's PostgreSQL pool: in_use (by a query or transaction) or idle",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      const pool = sources.databasePool();
      if (pool === null) return;
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
      this.set({ state: 'idle' }, pool.idleCount);
    },
  });
  optionalGauge(
    'linkpilot_db_pool_max_connections',
    "The PostgreSQL pool's bound (DATABASE_POOL_SIZE)",
    () => sources.databasePool()?.options.max ?? null,
  );
  optionalGauge(
    'linkpilot_db_pool_waiting_requests',
    'Queries and transactions waiting for a connection of the PostgreSQL pool',
    () => sources.databasePool()?.waitingCount ?? null,
  );
  // The rates held in memory: a scrape never queries the database.
  optionalGauge(
    'linkpilot_fx_rates_age_hours',
    'Age of the FX rates in use, from the upstream timestamp',
    () => sources.fxAgeHours(),
  );
  new Counter({
    name: 'linkpilot_click_consumer_written_total',
    help: 'Click records this process moved from the streams to PostgreSQL',
    registers: [registry],
    collect() {
      // The consumer keeps the running total; the counter shows it as it is.
      this.reset();
      this.inc(sources.clicksWritten());
    },
  });

  new Gauge({
    name: 'linkpilot_db_read_replica_lag_seconds',
    help: "Seconds of the primary's commits each read replica may not show yet, as this process last measured (absent while not measured)",
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { replica, lagSeconds } of sources.readReplicas()) {
        if (lagSeconds !== null) this.set({ replica: String(replica) }, lagSeconds);
      }
    },
  });
  new Gauge({
    name: 'linkpilot_db_read_replica_in_use',
    help: 'Whether the analytics reads go to each read replica (1: it keeps up within DATABASE_READ_MAX_LAG_S) or to the primary instead (0)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { replica, isInUse } of sources.readReplicas()) {
        this.set({ replica: String(replica) }, isInUse ? 1 : 0);
      }
    },
  });

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
async function readClickStreams(
  source: BackgroundGaugeSources['clickStreams'],
  timeoutMs: number,
): Promise<[string, ClickStreamState][]> {
  if (!source.isReachable()) return [];
  const states = Promise.all(
    source.streams.map(async (stream): Promise<[string, ClickStreamState]> => [
      stream,
      await source.read(stream),
    ]),
  );
  return withinDeadline(states, timeoutMs, 'The click streams').catch(() => []);
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
