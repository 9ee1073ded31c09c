import { DataSource } from 'typeorm';
import { runCli } from '../../src/cli/run-cli';
import { FxService } from '../../src/fx/fx.service';
import { SUPPORTED_CURRENCIES } from '../../src/fx/math/fx-snapshot';
import currencyApiRecorded from '../fixtures/fx/currency-api-usd.json';
import openErApiError from '../fixtures/fx/open-er-api-error.json';
import openErApiRecorded from '../fixtures/fx/open-er-api-latest-usd.json';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import {
  FakeFxUpstream,
  refusedUrl,
  startFakeFxUpstream,
  UpstreamReply,
} from '../support/fake-fx-upstream';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const HOUR_MS = 3_600_000;
const PRIMARY_PATH = '/v6/latest/USD';
const FALLBACK_PATH = '/v1/currencies/usd.json';

// Every refresh here writes a row that becomes the latest for every app on the database, so
// each test marks its payload (a unique EUR rate and a timestamp of its own) and asserts on
// what it wrote; refreshes always run on the real time, so the newest row is the last written.
let markerSeq = 0;
const uniqueEurRate = (): number =>
  Number((0.8 + (Date.now() % 100_000) / 10_000_000 + ++markerSeq / 1_000_000_000).toFixed(9));

/** The recorded open.er-api.com payload, re-dated and marked. */
function primaryPayload(
  options: {
    validAtMs?: number;
    eur?: number;
    drop?: string[];
    changes?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  const rates: Record<string, number> = { ...openErApiRecorded.rates };
  if (options.eur !== undefined) rates.EUR = options.eur;
  for (const code of options.drop ?? []) delete rates[code];
  const unixSeconds = Math.floor((options.validAtMs ?? Date.now() - HOUR_MS) / 1000);
  return {
    ...openErApiRecorded,
    time_last_update_unix: unixSeconds,
    time_last_update_utc: new Date(unixSeconds * 1000).toUTCString(),
    rates,
    ...options.changes,
  };
}

/** The recorded fawazahmed0 payload, dated today (UTC) and marked. */
function fallbackPayload(options: { eur?: number } = {}): Record<string, unknown> {
  return {
    date: todayUtc(),
    usd: { ...currencyApiRecorded.usd, ...(options.eur === undefined ? {} : { eur: options.eur }) },
  };
}

const todayUtc = (): string => new Date().toISOString().slice(0, 10);
const ok = (body: unknown): UpstreamReply => ({ status: 200, body });
const isoOfUnixSecondsOf = (payload: Record<string, unknown>): string =>
  new Date((payload.time_last_update_unix as number) * 1000).toISOString();

describe('FX rates (e2e)', () => {
  let primary: FakeFxUpstream;
  let fallback: FakeFxUpstream;

  beforeAll(async () => {
    primary = await startFakeFxUpstream(PRIMARY_PATH);
    fallback = await startFakeFxUpstream(FALLBACK_PATH);
  });
  afterAll(async () => {
    await primary.close();
    await fallback.close();
  });

  describe('refresh from the upstreams', () => {
    const clock = new TestClock();
    let t: TestApp;
    let fx: FxService;
    let creator: TestCreator;

    beforeAll(async () => {
      t = await startTestApp(
        { FX_PRIMARY_URL: primary.url, FX_FALLBACK_URL: fallback.url },
        { clock },
      );
      fx = t.app.get(FxService);
      creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    });
    afterAll(() => t.close());
    beforeEach(() => {
      primary.reply(ok(primaryPayload()));
      fallback.reply(ok(fallbackPayload()));
    });

    const getRates = () =>
      t.http.get('/v1/fx-rates').set('Authorization', creator.authorization).expect(200);
    const countRows = async (): Promise<number> => {
      const [row] = await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM fx_rates');
      return row.n as number;
    };

    it('should use the primary and serve its rates when both sources are up', async () => {
      const eur = uniqueEurRate();
      const payload = primaryPayload({ eur });
      primary.reply(ok(payload));
      const fallbackCalls = fallback.requestCount;

      const result = await fx.refresh();

      expect(result).toEqual({
        source: 'primary',
        validAt: isoOfUnixSecondsOf(payload),
        carriedOver: [],
      });
      expect(fallback.requestCount).toBe(fallbackCalls);
      const response = await getRates();
      expect(response.body).toEqual({
        success: true,
        data: {
          base: 'USD',
          rates: expect.any(Object),
          timestamp: result.validAt,
          isStale: false,
          ageHours: expect.any(Number),
          staleBeyondHours: 6,
          confidencePenalty: 0,
          source: 'primary',
        },
      });
      const { rates, ageHours } = response.body.data;
      expect(Object.keys(rates)).toEqual([...SUPPORTED_CURRENCIES]);
      expect(rates).toMatchObject({ USD: 1, EUR: eur, INR: 88.64, VND: 26348 });
      expect(ageHours).toBeGreaterThanOrEqual(0.9);
      expect(ageHours).toBeLessThanOrEqual(1.1);
    });

    it.each<[string, () => Promise<UpstreamReply | 'refused'>]>([
      ['refuses connections', () => Promise.resolve('refused')],
      ['answers HTTP 500', () => Promise.resolve({ status: 500, body: 'Internal Server Error' })],
      ['answers HTTP 404', () => Promise.resolve({ status: 404, body: { error: 'not found' } })],
    ])('should fall back when the primary %s', async (_case, primaryFailure) => {
      const failure = await primaryFailure();
      const eur = uniqueEurRate();
      fallback.reply(ok(fallbackPayload({ eur })));
      let app = t;
      if (failure === 'refused') {
        app = await startTestApp({
          FX_PRIMARY_URL: await refusedUrl(PRIMARY_PATH),
          FX_FALLBACK_URL: fallback.url,
        });
      } else {
        primary.reply(failure);
      }
      try {
        const result = await app.app.get(FxService).refresh();

        expect(result).toEqual({
          source: 'fallback',
          validAt: `${todayUtc()}T00:00:00.000Z`,
          carriedOver: [],
        });
        const response = await app.http
          .get('/v1/fx-rates')
          .set('Authorization', creator.authorization)
          .expect(200);
        expect(response.body.data).toMatchObject({
          source: 'fallback',
          timestamp: result.validAt,
          rates: { EUR: eur, USD: 1, AED: 3.6725 },
        });
      } finally {
        if (app !== t) await app.close();
      }
    });

    it.each<[string, UpstreamReply, RegExp]>([
      ['is not JSON', { status: 200, body: '{"result":"success","rates":{' }, /not valid JSON/],
      ['has another base', ok(primaryPayload({ changes: { base_code: 'EUR' } })), /base is "EUR"/],
      ['is an error answer', ok(openErApiError), /result is "error"/],
      [
        'has no timestamp',
        ok(primaryPayload({ changes: { time_last_update_unix: null } })),
        /time/,
      ],
      [
        'has a negative rate',
        ok(primaryPayload({ changes: { rates: { ...openErApiRecorded.rates, INR: -88 } } })),
        /rate of INR/,
      ],
    ])(
      'should treat a primary payload that %s as a failure and use the fallback',
      async (_case, reply) => {
        primary.reply(reply);
        const eur = uniqueEurRate();
        fallback.reply(ok(fallbackPayload({ eur })));

        const result = await fx.refresh();

        expect(result.source).toBe('fallback');
        expect((await getRates()).body.data.rates.EUR).toBe(eur);
      },
    );

    it('should keep the previous rates, write nothing and report it in health when both sources fail', async () => {
      const eur = uniqueEurRate();
      const before = await fx.refresh().then(() => getRates());
      primary.reply(ok(primaryPayload({ eur })));
      const kept = await fx.refresh();
      const rowsBefore = await countRows();
      primary.reply({ status: 500, body: 'upstream exploded' });
      fallback.reply({ status: 200, body: { date: todayUtc(), eur: { usd: 1.16 } } });
      const failedAtMs = clock.nowMs();

      await expect(fx.refresh()).rejects.toMatchObject({
        code: 'FX_DATA_UNAVAILABLE',
        details: { primary: ['HTTP 500'], fallback: [expect.stringMatching(/base is "EUR"/)] },
      });

      expect(await countRows()).toBe(rowsBefore);
      const response = await getRates();
      expect(response.body.data).toMatchObject({
        timestamp: kept.validAt,
        source: 'primary',
        rates: { EUR: eur },
      });
      expect(before.body.data.rates.EUR).not.toBe(eur);
      const health = await t.http.get('/v1/health').expect(200);
      expect(health.body.data.status).toBe('ok');
      expect(health.body.data.checks.fx).toEqual({
        status: 'refresh_failed',
        ageHours: expect.any(Number),
        lastRefreshFailedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        lastRefreshFailureReasons: ['primary: HTTP 500', 'fallback: base is "EUR", expected "USD"'],
      });
      const failedAt = Date.parse(health.body.data.checks.fx.lastRefreshFailedAt);
      expect(failedAt).toBeGreaterThanOrEqual(failedAtMs);
      expect(JSON.stringify(health.body)).not.toContain('127.0.0.1');

      primary.reply(ok(primaryPayload()));
      await fx.refresh();
      const recovered = await t.http.get('/v1/health').expect(200);
      expect(recovered.body.data.checks.fx).toEqual({ status: 'ok', ageHours: expect.any(Number) });
    });

    it('should fail with both reasons when both payloads are malformed', async () => {
      primary.reply(ok(primaryPayload({ changes: { base_code: 'GBP' } })));
      fallback.reply({ status: 200, body: '<html>rate limited</html>' });

      await expect(fx.refresh()).rejects.toMatchObject({
        code: 'FX_DATA_UNAVAILABLE',
        details: {
          primary: [expect.stringMatching(/base is "GBP"/)],
          fallback: ['body is not valid JSON'],
        },
      });
    });

    it('should carry over a currency the upstream lacks and report it', async () => {
      const previous = primaryPayload({ eur: uniqueEurRate() });
      const previousRates = previous.rates as Record<string, number>;
      previousRates.NGN = 1400 + (markerSeq % 100);
      previousRates.VND = 26000 + (markerSeq % 100);
      primary.reply(ok(previous));
      await fx.refresh();
      const eur = uniqueEurRate();
      primary.reply(ok(primaryPayload({ eur, drop: ['NGN', 'VND'], validAtMs: Date.now() })));

      const result = await fx.refresh();

      expect(result).toMatchObject({ source: 'primary', carriedOver: ['NGN', 'VND'] });
      const { data } = (await getRates()).body;
      expect(data.timestamp).toBe(result.validAt);
      expect(data.rates).toMatchObject({
        EUR: eur,
        NGN: previousRates.NGN,
        VND: previousRates.VND,
      });
    });

    it('should refresh from the CLI, print one JSON object, and reach the running server', async () => {
      const env = {
        ...process.env,
        LOG_LEVEL: 'fatal',
        FX_PRIMARY_URL: primary.url,
        FX_FALLBACK_URL: fallback.url,
      };
      const eur = uniqueEurRate();
      primary.reply(ok(primaryPayload({ eur })));
      let stdout = '';
      const io = { out: (text: string) => (stdout += text), err: () => undefined };

      expect(await runCli(['fx', 'refresh', '--json'], env, io)).toBe(0);
      expect(JSON.parse(stdout)).toEqual({
        source: 'primary',
        validAt: expect.any(String),
        carriedOver: [],
      });
      // Another process stored the rates: the server picks them up within about a second.
      let served = (await getRates()).body.data;
      for (let attempt = 0; attempt < 30 && served.rates.EUR !== eur; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        served = (await getRates()).body.data;
      }
      expect(served.rates.EUR).toBe(eur);

      primary.reply({ status: 502, body: 'bad gateway' });
      fallback.reply({ status: 503, body: 'unavailable' });
      stdout = '';
      expect(await runCli(['fx', 'refresh', '--json'], env, io)).toBe(1);
      expect(stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(stdout)).toEqual({
        error: {
          code: 'FX_DATA_UNAVAILABLE',
          message: expect.stringMatching(/previous rates stay/),
          details: { primary: ['HTTP 502'], fallback: ['HTTP 503'] },
        },
      });
    });

    it('should require an API key and document the endpoint', async () => {
      const response = await t.http.get('/v1/fx-rates');
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
      const docs = await t.http.get('/docs-json').expect(200);
      expect(docs.body.paths['/fx-rates'].get).toBeDefined();
      expect(Object.keys(docs.body.components.schemas.FxRatesResponse.properties)).toEqual([
        'base',
        'rates',
        'timestamp',
        'isStale',
        'ageHours',
        'staleBeyondHours',
        'confidencePenalty',
        'source',
      ]);
    });
  });

  describe('staleness', () => {
    // Its own app: the clock is moved only after the refresh, so no row is ever stored with a
    // fetched_at in the future (it would stay the latest for every later test and run).
    const clock = new TestClock();
    let t: TestApp;
    let creator: TestCreator;
    let validAtMs: number;

    beforeAll(async () => {
      t = await startTestApp(
        { FX_PRIMARY_URL: primary.url, FX_FALLBACK_URL: fallback.url, FX_STALE_AFTER_HOURS: '6' },
        { clock },
      );
      creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      validAtMs = Math.floor(Date.now() / 1000) * 1000 - HOUR_MS;
      primary.reply(ok(primaryPayload({ validAtMs, eur: uniqueEurRate() })));
      await t.app.get(FxService).refresh();
    });
    afterAll(() => t.close());

    const ratesAt = async (nowMs: number) => {
      clock.freezeAt(nowMs);
      const response = await t.http
        .get('/v1/fx-rates')
        .set('Authorization', creator.authorization)
        .expect(200);
      const health = await t.http.get('/v1/health').expect(200);
      return { rates: response.body.data, health: health.body.data };
    };

    it.each<[string, number, boolean, number, string]>([
      ['1 ms before the limit', 6 * HOUR_MS - 1, false, 0, 'ok'],
      ['exactly at the limit', 6 * HOUR_MS, false, 0, 'ok'],
      ['1 ms after the limit', 6 * HOUR_MS + 1, true, -0.02, 'stale'],
      ['a day after', 30 * HOUR_MS, true, -0.02, 'stale'],
    ])(
      'should report the rates %s with the right staleness and penalty',
      async (_case, elapsedMs, isStale, confidencePenalty, fxStatus) => {
        const { rates, health } = await ratesAt(validAtMs + elapsedMs);

        expect(rates).toMatchObject({
          timestamp: new Date(validAtMs).toISOString(),
          isStale,
          confidencePenalty,
          ageHours: Math.round((elapsedMs / HOUR_MS) * 10) / 10,
          staleBeyondHours: 6,
        });
        expect(health.checks.fx).toEqual({ status: fxStatus, ageHours: rates.ageHours });
        // docs/design.md section 2: stale FX never changes the overall status.
        expect(health.status).toBe('ok');
      },
    );
  });
});
