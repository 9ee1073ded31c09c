import * as path from 'node:path';
import { parseAllowlistEntry } from '../common/net/ip-allowlist';
import { projectRoot } from '../common/project-root';

/**
 * Every environment variable the service reads, once, with its default.
 * `loadConfig` validates them all and throws one ConfigError naming each bad variable,
 * so a misconfigured process stops at boot instead of failing on the first request.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface HttpConfig {
  port: number;
  host: string;
  /** Fastify/proxy-addr trust setting: a list of addresses, CIDRs or the names loopback/linklocal/uniquelocal. Empty = trust nobody. */
  trustProxy: string[];
  requireHttps: boolean;
  /** Origins allowed to call authenticated endpoints from a browser; `*.` wildcards allowed in the host. */
  corsOrigins: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Port of the Prometheus endpoint (GET /metrics); null: none served. */
  metricsPort: number | null;
  /** Interface of the Prometheus endpoint: loopback unless METRICS_HOST opens it wider. */
  metricsHost: string;
  /** A request's headers are due this long after its connection's first byte (408 after). */
  headersTimeoutMs: number;
  /** Open connections per client address (trusted proxies apart); 0: no cap. */
  maxConnectionsPerAddress: number;
}

export interface DatabaseConfig {
  /** Unset: the embedded PGlite under dataDir. */
  url: string | null;
  dataDir: string;
  poolSize: number;
  /**
   * The serving pool's bounds (not the CLI's migrations): a statement PostgreSQL has not
   * finished in this time is cancelled, and a connection not had in this time fails, so an
   * API call answers 503 (DATABASE_STATEMENT_TIMEOUT, DATABASE_UNAVAILABLE) instead of hanging.
   */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** At start (server, CLI): how long to wait for PostgreSQL to answer before giving up. */
  startupWaitMs: number;
  analytics: AnalyticsPoolConfig;
  readReplicas: ReadReplicasConfig;
}

/**
 * Streaming replicas of DATABASE_URL that answer the analytics reads (database/read-replicas.ts)
 * while they keep up; every other read, and every write, stays on the primary.
 */
interface ReadReplicasConfig {
  /** DATABASE_READ_URL, in order (health and metrics number them from 1); empty: none. */
  urls: string[];
  /** A replica further behind the primary than this is skipped until it catches up. */
  maxLagSeconds: number;
}

/**
 * The analytics reads (analytics/analytics-database.ts) apart from the serving pool, so a
 * dashboard never holds the connections the edge and the API need.
 */
interface AnalyticsPoolConfig {
  /**
   * Connections of their own pool, and so how many analytics statements run at once. 0: none
   * of their own, they take turns on the serving pool, one at a time (always so on PGlite).
   */
  poolSize: number;
  /** A statement not finished in this time is cancelled (their own pool only). */
  statementTimeoutMs: number;
  /** How long a read waits for its turn before answering 503 ANALYTICS_BUSY. */
  queueTimeoutMs: number;
  /**
   * Time-series points this server builds and sends a second (analytics/points-budget.ts):
   * the serving process's CPU, which the redirects share, not the database's.
   */
  pointsPerSecond: number;
  /**
   * The most of the time an analytics slot keeps the primary busy, in percent: after a read
   * that took t ms there, the slot rests t × (100 − share) / share ms before the next read
   * (database/primary-share.ts). 100: no rest. Reads on a replica never rest.
   */
  primarySharePercent: number;
}

/**
 * A Redis Cluster (REDIS_CLUSTER_NODES): the client learns the whole cluster from any seed
 * node that answers. Every node takes the same credentials and scheme.
 */
export interface RedisClusterConfig {
  nodes: { host: string; port: number }[];
  username: string | null;
  password: string | null;
  tls: boolean;
}

export interface KvConfig {
  /** REDIS_URL: one Redis server. */
  url: string | null;
  /** REDIS_CLUSTER_NODES: a Redis Cluster. Neither set: the in-process store. */
  cluster: RedisClusterConfig | null;
  /**
   * REDIS_COMMAND_TIMEOUT_MS: a command Redis has not answered in this time fails, and the
   * store counts Redis as unreachable until it answers a PING (src/kv/redis-client.ts).
   */
  commandTimeoutMs: number;
}

export interface RedirectConfig {
  redirectBaseUrl: string;
  countryHeader: string;
  botScoreHeader: string;
}

/** Learned routing (docs/routing.md section 10). */
export interface RoutingConfig {
  /** k: how many clicks a route's EPC hint is worth in its blend with the realised EPC. */
  priorClicks: number;
  /** The share of a learned creator's visitors (0 to 1) who explore a route other than the best. */
  explorationShare: number;
  /** The trailing window of clicks and commission the realised EPC is read over. */
  windowDays: number;
  /** How long a creator's observations are served before they are read again. */
  statsRefreshMs: number;
}

export interface HealthConfig {
  /** A dependency answering slower than this makes health `degraded`. */
  slowThresholdMs: number;
  /** A dependency not answering within this is unreachable. */
  timeoutMs: number;
}

export interface FxConfig {
  primaryUrl: string;
  fallbackUrl: string;
  staleAfterHours: number;
}

export interface ProbesConfig {
  /** Off: links keep healthStatus unknown and deepLinkStatus unchecked. */
  enabled: boolean;
  /** Tests only: let probes reach private, loopback and link-local addresses. */
  allowPrivateTargets: boolean;
  /** Tests only: send every probe to this http origin, with the link's Host header and path. */
  targetOverride: string | null;
}

export interface WebhooksConfig {
  /** Deliver the outbox from this process (off in tests, which run passes by hand). */
  workerEnabled: boolean;
  /** Tests only: endpoints may be http:// and private, loopback or link-local addresses. */
  allowPrivateTargets: boolean;
  /** WEBHOOK_SECRET_KEY: the 32-byte AES-256-GCM key new signing secrets are stored under. */
  secretKey: Buffer | null;
  /** WEBHOOK_SECRET_KEY_PREVIOUS: keys still read from, never written with, during a rotation. */
  previousSecretKeys: Buffer[];
  /**
   * Why the built-in development key may stand in for an unset secretKey: the embedded
   * default (DATABASE_URL unset), or WEBHOOK_ALLOW_DEVELOPMENT_KEY. Null: it may not, and a
   * server without WEBHOOK_SECRET_KEY refuses to start (webhooks/webhook-secret-keyring.ts).
   */
  developmentKeyAllowedBy: 'embedded-database' | 'WEBHOOK_ALLOW_DEVELOPMENT_KEY' | null;
}

export interface ClicksConfig {
  /** Off only for processes that must not write clicks (benchmarks of the edge alone). */
  consumerEnabled: boolean;
  pollIntervalMs: number;
  /** A pending stream entry idle this long belonged to a crashed worker and is claimed. */
  claimIdleMs: number;
  /** How often the click writers' link rollup deltas are folded into the link rollup. */
  rollupCompactIntervalMs: number;
}

/**
 * How long analytics data is kept (analytics/click-retention.service.ts): raw click partitions
 * for `clickMonths`, then only their rollups, which go after `rollupMonths` (never fewer).
 */
export interface RetentionConfig {
  /** Whole months of raw clicks kept before the current one (CLICK_RETENTION_MONTHS). */
  clickMonths: number;
  /** Whole months of rollups kept before the current one (ROLLUP_RETENTION_MONTHS). */
  rollupMonths: number;
}

/** Upper bound of both retention settings: a century, far beyond any plan of keeping data. */
const MAX_RETENTION_MONTHS = 1200;

/** The file the edge keeps the clicks it counts in while Redis is unreachable. */
export interface ClickSpoolConfig {
  /** DATA_DIR/click-spool. */
  dir: string;
  /** The most bytes the spool may hold: past it, clicks are served but not recorded. */
  maxBytes: number;
  /**
   * Whether this process replays the spool into Redis (ClickSpoolReplayService). The server
   * does; a CLI process shares DATA_DIR with a server that may be running and leaves its
   * spool alone.
   */
  replays: boolean;
}

/**
 * Default of AUTH_FAILURES_PER_MINUTE (auth/failed-auth-policy.ts applies it). 20 leaves room
 * for a person retyping a key or a few misconfigured scripts behind one NAT, and it is a third
 * of the smallest per-key limit (Publisher, 60 per minute), so failing requests can never cost
 * more than a paying key may.
 */
export const FAILED_AUTHS_PER_MINUTE = 20;

export interface AuthConfig {
  /** Failed authentications per client per minute before it is blocked (failed-auth-policy.ts). */
  failuresPerMinute: number;
}

/** Branded domains (docs/domains.md). */
export interface DomainsConfig {
  /**
   * DNS_RESOLVERS: the servers (`host` or `host:port`) the TXT challenge is asked of; empty:
   * the system's (/etc/resolv.conf).
   */
  dnsResolvers: string[];
}

export interface AppConfig {
  http: HttpConfig;
  auth: AuthConfig;
  database: DatabaseConfig;
  kv: KvConfig;
  redirect: RedirectConfig;
  routing: RoutingConfig;
  health: HealthConfig;
  fx: FxConfig;
  probes: ProbesConfig;
  clicks: ClicksConfig;
  clickSpool: ClickSpoolConfig;
  retention: RetentionConfig;
  webhooks: WebhooksConfig;
  domains: DomainsConfig;
}

type Env = Record<string, string | undefined>;

/** The documented variables (README and .env.example are checked against this list by a test). */
export const ENV_VARIABLES = [
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'DATABASE_STARTUP_WAIT_MS',
  'ANALYTICS_POOL_SIZE',
  'ANALYTICS_STATEMENT_TIMEOUT_MS',
  'ANALYTICS_QUEUE_TIMEOUT_MS',
  'ANALYTICS_POINTS_PER_SECOND',
  'ANALYTICS_PRIMARY_SHARE_PERCENT',
  'DATABASE_READ_URL',
  'DATABASE_READ_MAX_LAG_S',
  'REDIS_URL',
  'REDIS_CLUSTER_NODES',
  'REDIS_COMMAND_TIMEOUT_MS',
  'DATA_DIR',
  'REDIRECT_BASE_URL',
  'TRUST_PROXY',
  'AUTH_FAILURES_PER_MINUTE',
  'HTTP_HEADERS_TIMEOUT_MS',
  'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
  'REQUIRE_HTTPS',
  'CORS_ORIGINS',
  'COUNTRY_HEADER',
  'BOT_SCORE_HEADER',
  'ROUTING_PRIOR_CLICKS',
  'ROUTING_EXPLORATION_PERCENT',
  'ROUTING_WINDOW_DAYS',
  'ROUTING_STATS_REFRESH_S',
  'HEALTH_SLOW_MS',
  'HEALTH_TIMEOUT_MS',
  'FX_PRIMARY_URL',
  'FX_FALLBACK_URL',
  'FX_STALE_AFTER_HOURS',
  'PROBES_ENABLED',
  'PROBE_ALLOW_PRIVATE_TARGETS',
  'PROBE_TARGET_OVERRIDE',
  'CLICK_CONSUMER_ENABLED',
  'CLICK_POLL_INTERVAL_MS',
  'CLICK_CLAIM_IDLE_MS',
  'CLICK_ROLLUP_COMPACT_INTERVAL_MS',
  'CLICK_SPOOL_MAX_BYTES',
  'CLICK_RETENTION_MONTHS',
  'ROLLUP_RETENTION_MONTHS',
  'WEBHOOK_WORKER_ENABLED',
  'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  'WEBHOOK_SECRET_KEY',
  'WEBHOOK_SECRET_KEY_PREVIOUS',
  'WEBHOOK_ALLOW_DEVELOPMENT_KEY',
  'DNS_RESOLVERS',
] as const;

/** A documented variable's name: EnvReader reads no other, so a typo does not compile. */
type EnvName = (typeof ENV_VARIABLES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: EnvName, fallback: string): string {
    const raw = this.env[name];
    return raw === undefined || raw.trim() === '' ? fallback : raw.trim();
  }

  optional(name: EnvName): string | null {
    const raw = this.env[name];
    return raw === undefined || raw.trim() === '' ? null : raw.trim();
  }

  int(name: EnvName, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  bool(name: EnvName, fallback: boolean): boolean {
    const raw = this.optional(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  url(name: EnvName, fallback: string | null, protocols: string[]): string | null {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
      return raw;
    } catch {
      this.problems.push(`${name} must be a URL (got "${redactUrl(raw)}")`);
      return fallback;
    }
  }

  oneOf<T extends string>(name: EnvName, fallback: T, values: readonly T[]): T {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if (!(values as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  }

  list(name: EnvName, fallback: string[]): string[] {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }

  headerName(name: EnvName, fallback: string): string {
    const value = this.string(name, fallback).toLowerCase();
    if (!/^[a-z0-9-]+$/.test(value)) {
      this.problems.push(`${name} must be an HTTP header name (got "${value}")`);
    }
    return value;
  }
}

/** Hides the password of a connection URL so it never reaches a log or an error message. */
export function redactUrl(raw: string): string {
  // Greedy up to the last '@': a password may itself hold '@' or '/'.
  return raw.replace(/\/\/([^:@/]*):.*@/, '//$1:***@');
}

const SECRET_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
const SECRET_KEY_HINT = 'generate one with `openssl rand -hex 32`';

function parseSecretKey(reader: EnvReader): Buffer | null {
  const raw = reader.optional('WEBHOOK_SECRET_KEY');
  if (raw === null) return null;
  if (!SECRET_KEY_PATTERN.test(raw)) {
    reader.problems.push(
      `WEBHOOK_SECRET_KEY must be 64 hexadecimal characters (32 bytes): ${SECRET_KEY_HINT}`,
    );
    return null;
  }
  return Buffer.from(raw, 'hex');
}

/** Comma-separated, like the other lists; the values are never echoed (they are keys). */
function parsePreviousSecretKeys(reader: EnvReader): Buffer[] {
  const entries = reader.list('WEBHOOK_SECRET_KEY_PREVIOUS', []);
  const keys: Buffer[] = [];
  entries.forEach((entry, index) => {
    if (SECRET_KEY_PATTERN.test(entry)) keys.push(Buffer.from(entry, 'hex'));
    else {
      reader.problems.push(
        `WEBHOOK_SECRET_KEY_PREVIOUS entry ${index + 1} must be 64 hexadecimal characters (32 bytes)`,
      );
    }
  });
  return keys;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function parseTrustProxy(reader: EnvReader): string[] {
  const entries = reader.list('TRUST_PROXY', ['loopback']);
  if (entries.length === 1 && ['none', 'false'].includes(entries[0].toLowerCase())) return [];
  for (const entry of entries) {
    if (!PROXY_NAMES.has(entry) && parseAllowlistEntry(entry) === null) {
      reader.problems.push(
        `TRUST_PROXY must list IPs, CIDR blocks or loopback/linklocal/uniquelocal, or be "none" (got "${entry}")`,
      );
    }
  }
  return entries;
}

const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];

/**
 * DATABASE_READ_URL: comma-separated PostgreSQL URLs (a comma inside a password is written
 * %2C). Replicas are of a primary, so DATABASE_URL must be set; each gets a pool of
 * ANALYTICS_POOL_SIZE connections, so that must be at least 1.
 */
function parseReadReplicas(
  reader: EnvReader,
  databaseUrl: string | null,
  analyticsPoolSize: number,
): ReadReplicasConfig {
  const urls = reader.list('DATABASE_READ_URL', []);
  urls.forEach((url, index) => {
    let protocol: string | null = null;
    try {
      protocol = new URL(url).protocol;
    } catch {
      // Reported below, without the password.
    }
    if (protocol === null || !POSTGRES_PROTOCOLS.includes(protocol)) {
      reader.problems.push(
        `DATABASE_READ_URL entry ${index + 1} must be a postgresql:// URL (got "${redactUrl(url)}")`,
      );
    }
  });
  if (urls.length > 0 && databaseUrl === null) {
    reader.problems.push(
      'DATABASE_READ_URL needs DATABASE_URL: replicas are of a PostgreSQL primary, not of the embedded database',
    );
  }
  if (urls.length > 0 && analyticsPoolSize === 0) {
    reader.problems.push(
      'DATABASE_READ_URL needs ANALYTICS_POOL_SIZE of 1 or more: each replica gets a pool of that many connections',
    );
  }
  return { urls, maxLagSeconds: reader.int('DATABASE_READ_MAX_LAG_S', 30, 1, 86_400) };
}

const REDIS_PROTOCOLS = ['redis:', 'rediss:'];

function parseKvConfig(reader: EnvReader): KvConfig {
  const url = reader.url('REDIS_URL', null, REDIS_PROTOCOLS);
  const cluster = parseRedisClusterNodes(reader);
  if (url !== null && cluster !== null) {
    reader.problems.push('Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a cluster), not both');
  }
  const commandTimeoutMs = reader.int('REDIS_COMMAND_TIMEOUT_MS', 500, 20, 60_000);
  return { url, cluster, commandTimeoutMs };
}

/**
 * REDIS_CLUSTER_NODES: seed nodes, comma-separated, each `host:port` or
 * `redis[s]://[user:password@]host:port`. Credentials and scheme must agree across entries
 * (ioredis gives every node one set), and there is no database number: a cluster has only 0.
 */
function parseRedisClusterNodes(reader: EnvReader): RedisClusterConfig | null {
  const entries = reader.list('REDIS_CLUSTER_NODES', []);
  if (entries.length === 0) return null;
  const seeds: ClusterSeed[] = [];
  for (const entry of entries) {
    const withScheme = entry.includes('://') ? entry : `redis://${entry}`;
    const seed = parseClusterSeed(withScheme);
    if (seed === null) {
      reader.problems.push(
        `REDIS_CLUSTER_NODES entries must be host:port or redis[s]://[user:password@]host:port, without a database (got "${redactUrl(withScheme)}")`,
      );
    } else seeds.push(seed);
  }
  if (seeds.length === 0) return null;
  const [{ username, password, tls }] = seeds;
  if (seeds.some((s) => s.username !== username || s.password !== password || s.tls !== tls)) {
    reader.problems.push('REDIS_CLUSTER_NODES entries must share one user, password and scheme');
  }
  return { nodes: seeds.map(({ host, port }) => ({ host, port })), username, password, tls };
}

type ClusterSeed = RedisClusterConfig['nodes'][number] & Omit<RedisClusterConfig, 'nodes'>;

function parseClusterSeed(raw: string): ClusterSeed | null {
  try {
    const url = new URL(raw);
    const hasDatabase = url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0';
    if (!REDIS_PROTOCOLS.includes(url.protocol) || url.hostname === '' || hasDatabase) return null;
    return {
      // An IPv6 literal comes bracketed in a URL, and bare to the client.
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? 6379 : Number(url.port),
      username: url.username === '' ? null : decodeURIComponent(url.username),
      password: url.password === '' ? null : decodeURIComponent(url.password),
      tls: url.protocol === 'rediss:',
    };
  } catch {
    // Not a URL, or a stray % in its credentials.
    return null;
  }
}

/** `host` or `host:port` (IPv6 in brackets with a port), as node:dns Resolver.setServers takes them. */
const DNS_SERVER = /^(?:[0-9.]+|[0-9a-fA-F:]+|\[[0-9a-fA-F:]+\])(?::[0-9]{1,5})?$/;

function parseDnsResolvers(reader: EnvReader): string[] {
  const servers = reader.list('DNS_RESOLVERS', []);
  for (const server of servers) {
    if (!DNS_SERVER.test(server)) {
      reader.problems.push(
        `DNS_RESOLVERS entries must be IP addresses with an optional port (got "${server}")`,
      );
    }
  }
  return servers;
}

/**
 * The rollups are all that is left of a month once its raw clicks are dropped, so they are
 * kept at least as long: a shorter rollup retention is refused rather than quietly raised.
 */
function parseRetention(reader: EnvReader): RetentionConfig {
  const clickMonths = reader.int('CLICK_RETENTION_MONTHS', 13, 1, MAX_RETENTION_MONTHS);
  const rollupMonths = reader.int('ROLLUP_RETENTION_MONTHS', 37, 1, MAX_RETENTION_MONTHS);
  if (rollupMonths < clickMonths) {
    reader.problems.push(
      `ROLLUP_RETENTION_MONTHS (${rollupMonths}) must be at least CLICK_RETENTION_MONTHS ` +
        `(${clickMonths}): the rollups are all that is left of a month once its raw clicks are dropped`,
    );
  }
  return { clickMonths, rollupMonths };
}

export function loadConfig(env: Env = process.env): AppConfig {
  const reader = new EnvReader(env);
  const port = reader.int('PORT', 3000, 0, 65535);
  // From the project root, whatever the current folder: the CLI run from elsewhere reaches the
  // server's embedded database rather than making an empty one where it stands.
  const dataDir = path.resolve(projectRoot(), reader.string('DATA_DIR', 'data'));
  const databaseUrl = reader.url('DATABASE_URL', null, POSTGRES_PROTOCOLS);
  const analyticsPoolSize = reader.int('ANALYTICS_POOL_SIZE', 1, 0, 100);
  const config: AppConfig = {
    http: {
      port,
      host: reader.string('HOST', '0.0.0.0'),
      trustProxy: parseTrustProxy(reader),
      requireHttps: reader.bool('REQUIRE_HTTPS', true),
      corsOrigins: reader.list('CORS_ORIGINS', ['https://linkpilot.io', 'https://*.linkpilot.io']),
      logLevel: reader.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
      metricsPort:
        reader.optional('METRICS_PORT') === null ? null : reader.int('METRICS_PORT', 0, 0, 65535),
      // Unauthenticated: reachable from this machine only unless the operator says otherwise.
      metricsHost: reader.string('METRICS_HOST', '127.0.0.1'),
      headersTimeoutMs: reader.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      maxConnectionsPerAddress: reader.int('HTTP_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    },
    auth: {
      failuresPerMinute: reader.int('AUTH_FAILURES_PER_MINUTE', FAILED_AUTHS_PER_MINUTE, 1, 100000),
    },
    database: {
      url: databaseUrl,
      dataDir,
      poolSize: reader.int('DATABASE_POOL_SIZE', 10, 1, 100),
      statementTimeoutMs: reader.int('DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
      connectTimeoutMs: reader.int('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
      startupWaitMs: reader.int('DATABASE_STARTUP_WAIT_MS', 15_000, 0, 600_000),
      analytics: {
        poolSize: analyticsPoolSize,
        statementTimeoutMs: reader.int('ANALYTICS_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
        queueTimeoutMs: reader.int('ANALYTICS_QUEUE_TIMEOUT_MS', 2_000, 0, 60_000),
        pointsPerSecond: reader.int('ANALYTICS_POINTS_PER_SECOND', 50_000, 1, 100_000_000),
        primarySharePercent: reader.int('ANALYTICS_PRIMARY_SHARE_PERCENT', 25, 1, 100),
      },
      readReplicas: parseReadReplicas(reader, databaseUrl, analyticsPoolSize),
    },
    kv: parseKvConfig(reader),
    redirect: {
      redirectBaseUrl: (
        reader.url('REDIRECT_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']) ?? ''
      ).replace(/\/+$/, ''),
      countryHeader: reader.headerName('COUNTRY_HEADER', 'cf-ipcountry'),
      botScoreHeader: reader.headerName('BOT_SCORE_HEADER', 'x-bot-score'),
    },
    routing: {
      priorClicks: reader.int('ROUTING_PRIOR_CLICKS', 200, 1, 1_000_000),
      explorationShare: reader.int('ROUTING_EXPLORATION_PERCENT', 5, 0, 50) / 100,
      windowDays: reader.int('ROUTING_WINDOW_DAYS', 30, 1, 365),
      statsRefreshMs: reader.int('ROUTING_STATS_REFRESH_S', 60, 1, 3600) * 1000,
    },
    health: {
      slowThresholdMs: reader.int('HEALTH_SLOW_MS', 250, 1, 60000),
      timeoutMs: reader.int('HEALTH_TIMEOUT_MS', 1000, 10, 60000),
    },
    fx: {
      primaryUrl:
        reader.url('FX_PRIMARY_URL', 'https://open.er-api.com/v6/latest/USD', [
          'http:',
          'https:',
        ]) ?? '',
      fallbackUrl:
        // fawazahmed0 currency-api: keyless and carries all 23 currencies (frankfurter's ECB
        // set lacks AED, SAR, EGP, NGN, ARS, TWD and VND).
        reader.url(
          'FX_FALLBACK_URL',
          'https://cdn.jsdelivr.net/npm/@fawazahmed0/currency-api@latest/v1/currencies/usd.json',
          ['http:', 'https:'],
        ) ?? '',
      staleAfterHours: reader.int('FX_STALE_AFTER_HOURS', 6, 1, 720),
    },
    clicks: {
      consumerEnabled: reader.bool('CLICK_CONSUMER_ENABLED', true),
      pollIntervalMs: reader.int('CLICK_POLL_INTERVAL_MS', 250, 10, 60000),
      claimIdleMs: reader.int('CLICK_CLAIM_IDLE_MS', 30000, 1, 3600000),
      rollupCompactIntervalMs: reader.int('CLICK_ROLLUP_COMPACT_INTERVAL_MS', 60000, 100, 600000),
    },
    clickSpool: {
      dir: path.join(dataDir, 'click-spool'),
      // 64 MiB: about 280,000 clicks at ~240 bytes a line: half a minute at this machine's
      // saturated redirect rate (about 10,000/s), an hour and a half at 50 clicks/s.
      maxBytes: reader.int('CLICK_SPOOL_MAX_BYTES', 64 * 1024 * 1024, 1024, 2 ** 40),
      replays: true,
    },
    retention: parseRetention(reader),
    probes: {
      enabled: reader.bool('PROBES_ENABLED', true),
      allowPrivateTargets: reader.bool('PROBE_ALLOW_PRIVATE_TARGETS', false),
      targetOverride: reader.url('PROBE_TARGET_OVERRIDE', null, ['http:']),
    },
    webhooks: {
      workerEnabled: reader.bool('WEBHOOK_WORKER_ENABLED', true),
      allowPrivateTargets: reader.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
      secretKey: parseSecretKey(reader),
      previousSecretKeys: parsePreviousSecretKeys(reader),
      developmentKeyAllowedBy: reader.bool('WEBHOOK_ALLOW_DEVELOPMENT_KEY', false)
        ? 'WEBHOOK_ALLOW_DEVELOPMENT_KEY'
        : databaseUrl === null
          ? 'embedded-database'
          : null,
    },
    domains: { dnsResolvers: parseDnsResolvers(reader) },
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
