import * as fc from 'fast-check';
import * as path from 'node:path';
import { ConfigError, loadConfig, redactUrl, RedisClusterConfig } from './env';
import { projectRoot } from '../common/project-root';

type Env = Record<string, string | undefined>;

/** The ConfigError loadConfig throws for this environment; fails the test when it throws none. */
function configErrorOf(env: Env): ConfigError {
  let thrown: unknown;
  try {
    loadConfig(env);
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof ConfigError)) {
    throw new Error(`expected a ConfigError for ${JSON.stringify(env)}, got ${String(thrown)}`);
  }
  return thrown;
}

describe(loadConfig.name, () => {
  it('should apply the documented defaults when the environment is empty', () => {
    const config = loadConfig({});

    expect(config.http).toEqual({
      port: 3000,
      host: '0.0.0.0',
      trustProxy: ['loopback'],
      requireHttps: true,
      corsOrigins: ['https://linkpilot.io', 'https://*.linkpilot.io'],
      logLevel: 'info',
      metricsPort: null,
      metricsHost: '127.0.0.1',
      headersTimeoutMs: 10_000,
      maxConnectionsPerAddress: 256,
    });
    expect(config.database.url).toBeNull();
    expect(config.database.poolSize).toBe(10);
    // From the project root, not the current folder (the CLI may run from anywhere).
    expect(config.database.dataDir).toBe(path.join(projectRoot(), 'data'));
    expect(config.kv).toEqual({ url: null, cluster: null, commandTimeoutMs: 500 });
    expect(config.redirect).toEqual({
      redirectBaseUrl: 'http://localhost:3000',
      countryHeader: 'cf-ipcountry',
      botScoreHeader: 'x-bot-score',
    });
    expect(config.health).toEqual({ slowThresholdMs: 250, timeoutMs: 1000 });
    expect(config.fx.staleAfterHours).toBe(6);
  });

  it('should treat blank values as unset when variables are empty or whitespace', () => {
    expect(
      loadConfig({ PORT: '', REQUIRE_HTTPS: '  ', DATABASE_URL: '', TRUST_PROXY: ' ' }),
    ).toEqual(loadConfig({}));
  });

  it.each<[string, string]>([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '3000.5'],
    ['REQUIRE_HTTPS', 'maybe'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'notaurl'],
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_CLUSTER_NODES', 'cache-1:7000,http://cache-2:7000'],
    ['REDIS_CLUSTER_NODES', 'redis://cache-1:7000/2'],
    ['REDIS_CLUSTER_NODES', 'redis://:a@cache-1:7000,redis://:b@cache-2:7000'],
    ['REDIS_COMMAND_TIMEOUT_MS', '0'],
    ['REDIS_COMMAND_TIMEOUT_MS', '0.5s'],
    ['TRUST_PROXY', 'banana'],
    ['TRUST_PROXY', 'loopback,banana'],
    ['LOG_LEVEL', 'loud'],
    ['COUNTRY_HEADER', 'bad header'],
    ['BOT_SCORE_HEADER', 'x_bot:score'],
    ['REDIRECT_BASE_URL', 'ftp://go.linkpilot.io'],
    ['DATABASE_POOL_SIZE', '0'],
    ['FX_STALE_AFTER_HOURS', 'six'],
    ['HTTP_HEADERS_TIMEOUT_MS', '50'],
    ['HTTP_MAX_CONNECTIONS_PER_ADDRESS', '-1'],
    ['CLICK_RETENTION_MONTHS', '0'],
    ['CLICK_RETENTION_MONTHS', '1.5'],
    ['ROLLUP_RETENTION_MONTHS', 'three years'],
    ['ROLLUP_RETENTION_MONTHS', '12'],
    ['DATABASE_READ_MAX_LAG_S', '0'],
  ])('should throw a ConfigError naming %s when it is %j', (name, value) => {
    const error = configErrorOf({ [name]: value });

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0].startsWith(`${name} `)).toBe(true);
    expect(error.message).toContain(name);
  });

  it('should read no replica by default, and replicas within 30 s of lag', () => {
    expect(loadConfig({}).database.readReplicas).toEqual({ urls: [], maxLagSeconds: 30 });
    expect(
      loadConfig({
        DATABASE_URL: 'postgresql://app@primary/app',
        DATABASE_READ_URL: 'postgresql://app@replica-1/app, postgres://app@replica-2:6432/app',
        DATABASE_READ_MAX_LAG_S: '5',
      }).database.readReplicas,
    ).toEqual({
      urls: ['postgresql://app@replica-1/app', 'postgres://app@replica-2:6432/app'],
      maxLagSeconds: 5,
    });
  });

  it.each<[string, Env, string]>([
    [
      'an entry that is no PostgreSQL URL, without its password',
      {
        DATABASE_URL: 'postgresql://p/app',
        DATABASE_READ_URL: 'postgresql://r/app,mysql://u:hunter2@r2/app',
      },
      'DATABASE_READ_URL entry 2 must be a postgresql:// URL',
    ],
    [
      'replicas of the embedded database',
      { DATABASE_READ_URL: 'postgresql://r/app' },
      'DATABASE_READ_URL needs DATABASE_URL',
    ],
    [
      'replicas without an analytics pool',
      {
        DATABASE_URL: 'postgresql://p/app',
        DATABASE_READ_URL: 'postgresql://r/app',
        ANALYTICS_POOL_SIZE: '0',
      },
      'DATABASE_READ_URL needs ANALYTICS_POOL_SIZE of 1 or more',
    ],
  ])('should refuse %s', (_case, env, problem) => {
    const error = configErrorOf(env);

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toContain(problem);
    expect(error.message).not.toContain('hunter2');
  });

  it('should throw one ConfigError naming every bad variable when several are bad', () => {
    const env = {
      PORT: 'abc',
      REQUIRE_HTTPS: 'maybe',
      DATABASE_URL: 'mysql://x',
      REDIS_URL: 'notaurl',
      TRUST_PROXY: 'banana',
      LOG_LEVEL: 'loud',
      COUNTRY_HEADER: 'bad header',
    };

    const error = configErrorOf(env);

    expect(error.problems).toHaveLength(Object.keys(env).length);
    for (const name of Object.keys(env)) {
      expect(error.message).toContain(name);
    }
  });

  it('should keep 13 months of raw clicks and 37 of rollups by default', () => {
    expect(loadConfig({}).retention).toEqual({ clickMonths: 13, rollupMonths: 37 });
    expect(
      loadConfig({ CLICK_RETENTION_MONTHS: '1', ROLLUP_RETENTION_MONTHS: '1' }).retention,
    ).toEqual({ clickMonths: 1, rollupMonths: 1 });
  });

  it('should refuse rollups kept for less time than the raw clicks they outlive', () => {
    const error = configErrorOf({ CLICK_RETENTION_MONTHS: '24', ROLLUP_RETENTION_MONTHS: '18' });

    expect(error.problems).toEqual([
      'ROLLUP_RETENTION_MONTHS (18) must be at least CLICK_RETENTION_MONTHS (24): the rollups are all that is left of a month once its raw clicks are dropped',
    ]);
  });

  it.each<[string, RedisClusterConfig]>([
    [
      'cache-1:7000, cache-2:7001',
      {
        nodes: [
          { host: 'cache-1', port: 7000 },
          { host: 'cache-2', port: 7001 },
        ],
        username: null,
        password: null,
        tls: false,
      },
    ],
    [
      'rediss://app:p%40ss@10.0.0.1:7000,rediss://app:p%40ss@[::1]',
      {
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '::1', port: 6379 },
        ],
        username: 'app',
        password: 'p@ss',
        tls: true,
      },
    ],
  ])('should read REDIS_CLUSTER_NODES=%j', (value, expected) => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: value }).kv).toEqual({
      url: null,
      cluster: expected,
      commandTimeoutMs: 500,
    });
  });

  it('should refuse REDIS_URL and REDIS_CLUSTER_NODES together', () => {
    const error = configErrorOf({
      REDIS_URL: 'redis://cache:6379',
      REDIS_CLUSTER_NODES: 'cache-1:7000',
    });

    expect(error.problems).toEqual([
      'Set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a cluster), not both',
    ]);
  });

  it.each<[string, string[]]>([
    ['none', []],
    ['NONE', []],
    ['false', []],
    ['loopback', ['loopback']],
    ['loopback, uniquelocal', ['loopback', 'uniquelocal']],
    ['10.0.0.1,192.168.0.0/16', ['10.0.0.1', '192.168.0.0/16']],
    ['2001:db8::/32', ['2001:db8::/32']],
  ])('should read TRUST_PROXY=%j as %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).http.trustProxy).toEqual(expected);
  });

  it.each<[string, boolean]>([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
  ])('should read REQUIRE_HTTPS=%j as %s', (value, expected) => {
    expect(loadConfig({ REQUIRE_HTTPS: value }).http.requireHttps).toBe(expected);
  });

  it.each<[string, Env, (config: ReturnType<typeof loadConfig>) => unknown, unknown]>([
    ['PORT is 8080', { PORT: '8080' }, (c) => c.http.port, 8080],
    [
      'PORT is 8080 (base URL follows)',
      { PORT: '8080' },
      (c) => c.redirect.redirectBaseUrl,
      'http://localhost:8080',
    ],
    [
      'DATABASE_URL uses postgresql:',
      { DATABASE_URL: 'postgresql://app@db:5432/linkpilot' },
      (c) => c.database.url,
      'postgresql://app@db:5432/linkpilot',
    ],
    [
      'REDIS_URL uses rediss:',
      { REDIS_URL: 'rediss://cache:6380' },
      (c) => c.kv.url,
      'rediss://cache:6380',
    ],
    [
      'REDIRECT_BASE_URL has trailing slashes',
      { REDIRECT_BASE_URL: 'https://go.linkpilot.io//' },
      (c) => c.redirect.redirectBaseUrl,
      'https://go.linkpilot.io',
    ],
    [
      'COUNTRY_HEADER is mixed case',
      { COUNTRY_HEADER: 'X-Country' },
      (c) => c.redirect.countryHeader,
      'x-country',
    ],
    ['LOG_LEVEL is silent', { LOG_LEVEL: 'silent' }, (c) => c.http.logLevel, 'silent'],
    [
      'CORS_ORIGINS lists two origins',
      { CORS_ORIGINS: 'https://a.example, https://b.example,' },
      (c) => c.http.corsOrigins,
      ['https://a.example', 'https://b.example'],
    ],
  ])('should read the value when %s', (_name, env, select, expected) => {
    expect(select(loadConfig(env))).toEqual(expected);
  });

  it.each<[string, string]>([
    ['DATABASE_URL', 'postgres://admin:hunter2@db.internal:notaport/app'],
    ['DATABASE_URL', 'mysql://admin:hunter2@db.internal/app'],
    ['DATABASE_URL', 'postgres://admin:hunter2@db internal/app'],
    ['REDIS_URL', 'redis://:hunter2@cache:notaport/0'],
    ['REDIS_URL', 'http://default:hunter2@cache:6379'],
    ['REDIS_CLUSTER_NODES', 'redis://:hunter2@cache:7000/5'],
    ['REDIS_CLUSTER_NODES', ':hunter2@cache:notaport'],
    ['REDIS_CLUSTER_NODES', 'redis://:hunter2@a:7000,redis://:other@b:7000'],
  ])('should never put the password in the error message when %s is %j', (name, value) => {
    const error = configErrorOf({ [name]: value });

    expect(error.message).toContain(name);
    expect(error.message).not.toContain('hunter2');
  });

  it('should never put the password in the error message when a DATABASE_URL with any alphanumeric password is invalid', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9]{1,24}$/),
        fc.constantFrom('notaport', '99999', 'x'),
        (password, port) => {
          const secret = `SECRET${password}`;

          const error = configErrorOf({ DATABASE_URL: `postgres://app:${secret}@db:${port}/app` });

          expect(error.message).not.toContain(secret);
        },
      ),
    );
  });
});

describe(redactUrl.name, () => {
  it.each([
    ['postgres://user:secret@db:5432/app', 'postgres://user:***@db:5432/app'],
    ['redis://:secret@cache:6379/0', 'redis://:***@cache:6379/0'],
    ['postgres://user@db:5432/app', 'postgres://user@db:5432/app'],
    ['postgres://db:5432/app', 'postgres://db:5432/app'],
    ['notaurl', 'notaurl'],
  ])('should redact %j to %j', (raw, expected) => {
    expect(redactUrl(raw)).toBe(expected);
  });
});

describe('redactUrl with awkward passwords', () => {
  it.each([['postgres://user:p@ss@host:badport/db'], ['postgres://user:pa/ss@host:x/db']])(
    'should hide every character of the password in %s',
    (url) => {
      expect(redactUrl(url)).toBe(url.replace(/\/\/user:.*@/, '//user:***@'));
    },
  );

  it('should refuse a TRUST_PROXY entry that is not an address, block or name', () => {
    for (const value of ['cafe', 'deadbeef', '10.0.0.0/99']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('loadConfig: webhook secret keys', () => {
  const KEY = 'ab'.repeat(32);
  const OTHER = 'cd'.repeat(32);
  const POSTGRES = 'postgresql://app@db:5432/linkpilot';

  it.each<[string, Env, ReturnType<typeof loadConfig>['webhooks']['developmentKeyAllowedBy']]>([
    ['on the embedded default', {}, 'embedded-database'],
    ['on PostgreSQL', { DATABASE_URL: POSTGRES }, null],
    [
      'on PostgreSQL with WEBHOOK_ALLOW_DEVELOPMENT_KEY',
      { DATABASE_URL: POSTGRES, WEBHOOK_ALLOW_DEVELOPMENT_KEY: 'true' },
      'WEBHOOK_ALLOW_DEVELOPMENT_KEY',
    ],
  ])('should say whether the development key may stand in %s', (_name, env, expected) => {
    expect(loadConfig(env).webhooks.developmentKeyAllowedBy).toBe(expected);
  });

  it('should read the current key and the previous ones', () => {
    const { webhooks } = loadConfig({
      WEBHOOK_SECRET_KEY: KEY.toUpperCase(),
      WEBHOOK_SECRET_KEY_PREVIOUS: ` ${OTHER}, ${KEY},`,
    });
    expect(webhooks.secretKey).toEqual(Buffer.from(KEY, 'hex'));
    expect(webhooks.previousSecretKeys).toEqual([
      Buffer.from(OTHER, 'hex'),
      Buffer.from(KEY, 'hex'),
    ]);
  });

  it.each<[Env, RegExp]>([
    [
      { WEBHOOK_SECRET_KEY: 'hunter2' },
      /WEBHOOK_SECRET_KEY must be 64 hexadecimal.*openssl rand -hex 32/,
    ],
    [{ WEBHOOK_SECRET_KEY: `${KEY}0` }, /WEBHOOK_SECRET_KEY must be 64 hexadecimal/],
    [
      { WEBHOOK_SECRET_KEY_PREVIOUS: `${KEY},hunter2` },
      /WEBHOOK_SECRET_KEY_PREVIOUS entry 2 must be/,
    ],
    [
      { WEBHOOK_ALLOW_DEVELOPMENT_KEY: 'sure' },
      /WEBHOOK_ALLOW_DEVELOPMENT_KEY must be true or false/,
    ],
  ])('should refuse %j without echoing a key', (env, message) => {
    const error = configErrorOf(env);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('hunter2');
  });
});
