import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { runCli } from '../../src/cli/run-cli';
import { ulid } from 'ulid';
import { buildAsosUrl, createLinkViaApi } from '../factories/api-link.factory';
import { insertClicks } from '../factories/click.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

/** A day of our own FX history (EUR at 0.5 a dollar), far before any other test's rates. */
const FX_DAY = '2001-03-01';
const EUR_PER_USD = 0.5;
const PERIOD = '?periodStart=2001-03-01&periodEnd=2001-03-31';

interface Recorded {
  index: number;
  replayed: boolean;
  conversion: {
    id: string;
    linkId: string | null;
    attributed: boolean;
    region: string | null;
    visitorCountry: string | null;
    deviceClass: string | null;
    commissionUsd: number;
    currency: string;
  };
}

describe('Conversions (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  let api: ApiClient;
  let other: ApiClient;
  let otherCreator: TestCreator;

  beforeAll(async () => {
    t = await startTestApp({ PROBES_ENABLED: 'false', CLICK_CONSUMER_ENABLED: 'false' });
    await t.app.get(DataSource).query(
      `INSERT INTO fx_rates (valid_at, fetched_at, source, rates)
       SELECT $1, $1, 'snapshot', rates || jsonb_build_object('EUR', $2::numeric)
         FROM fx_rates ORDER BY id LIMIT 1`,
      [`${FX_DAY}T00:00:00Z`, EUR_PER_USD],
    );
    creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    otherCreator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    api = createApiClient(t, creator);
    other = createApiClient(t, otherCreator);
  });
  afterAll(() => t.close());

  const clickOf = async (who: TestCreator, seed: Record<string, unknown> = {}) => {
    const [click] = await insertClicks(t.app, who.creatorId, [
      { clickedAt: `${FX_DAY}T10:00:00Z`, networkId: 'awin', region: 'GB', ...seed },
    ]);
    return click;
  };
  const conversion = (overrides: Record<string, unknown>) => ({
    networkId: 'awin',
    orderId: `O-${ulid()}`,
    status: 'pending',
    saleAmount: 100,
    commission: 8,
    currency: 'EUR',
    occurredAt: `${FX_DAY}T12:00:00Z`,
    ...overrides,
  });
  const record = async (client: ApiClient, items: unknown[]) => {
    const response = await client.post('/v1/conversions', { conversions: items });
    expect(response.status).toBe(207);
    return response.body.data as {
      recorded: Recorded[];
      failed: { index: number; error: { code: string; details?: Record<string, string[]> } }[];
      totalRecorded: number;
      totalReplayed: number;
      totalFailed: number;
    };
  };
  const earnings = async (client: ApiClient) =>
    (await client.get(`/v1/analytics/summary${PERIOD}`).expect(200)).body.data.earnings as {
      conversions: number;
      approvedCommissionUsd: number;
      pendingCommissionUsd: number;
      clicks: number;
      realisedEpcUsd: number;
      unattributedConversions: number;
      byNetwork: { networkId: string; conversions: number; pendingCommissionUsd: number }[];
      byRegion: { region: string | null; conversions: number }[];
    };

  it("should attribute a conversion to its click's link and route, in USD at occurredAt's rates", async () => {
    const { linkId } = await createLinkViaApi(api, { originalUrl: buildAsosUrl() });
    const click = await clickOf(creator, { linkId, visitorCountry: 'DE', deviceClass: 'mobile' });
    const before = await earnings(api);

    const answer = await record(api, [conversion({ clickId: click.recordId })]);

    expect(answer.totalRecorded).toBe(1);
    expect(answer.recorded[0].conversion).toMatchObject({
      linkId: click.linkId,
      attributed: true,
      region: 'GB',
      visitorCountry: 'DE',
      deviceClass: 'mobile',
      currency: 'EUR',
      commissionUsd: 16,
    });
    const after = await earnings(api);
    expect(after.conversions - before.conversions).toBe(1);
    expect(after.pendingCommissionUsd - before.pendingCommissionUsd).toBeCloseTo(16, 6);
    const link = (await api.get(`/v1/analytics/links/${click.linkId}${PERIOD}`).expect(200)).body
      .data.earnings;
    expect(link).toMatchObject({
      clicks: 1,
      conversions: 1,
      pendingCommissionUsd: 16,
      approvedCommissionUsd: 0,
      conversionRate: 1,
      realisedEpcUsd: 16,
      byNetwork: [{ networkId: 'awin', clicks: 1, conversions: 1 }],
      byRegion: [{ region: 'GB', clicks: 1, conversions: 1 }],
    });
  });

  it('should change nothing when a conversion is sent again, and move pending to approved once', async () => {
    const click = await clickOf(creator);
    const pending = conversion({ clickId: click.recordId });
    await record(api, [pending]);
    const before = await earnings(api);

    const replay = await record(api, [pending, pending]);
    const approved = await record(api, [{ ...pending, status: 'approved', commission: 10 }]);

    expect(replay.totalRecorded).toBe(0);
    expect(replay.totalReplayed).toBe(2);
    expect(replay.recorded.every((item) => item.replayed)).toBe(true);
    expect(approved.totalRecorded).toBe(1);
    const after = await earnings(api);
    expect(after.conversions).toBe(before.conversions);
    expect(after.pendingCommissionUsd - before.pendingCommissionUsd).toBeCloseTo(-16, 6);
    expect(after.approvedCommissionUsd - before.approvedCommissionUsd).toBeCloseTo(20, 6);
  });

  it('should subtract a reversed order from the link and the summary', async () => {
    const { linkId } = await createLinkViaApi(api, { originalUrl: buildAsosUrl() });
    const click = await clickOf(creator, { linkId });
    const order = conversion({ clickId: click.recordId, status: 'approved', commission: 3 });
    await record(api, [order]);
    const before = await earnings(api);

    const reversal = await record(api, [{ ...order, status: 'reversed' }]);

    expect(reversal.totalRecorded).toBe(1);
    const after = await earnings(api);
    expect(after.conversions - before.conversions).toBe(-1);
    expect(after.approvedCommissionUsd - before.approvedCommissionUsd).toBeCloseTo(-6, 6);
    const link = (await api.get(`/v1/analytics/links/${click.linkId}${PERIOD}`).expect(200)).body
      .data.earnings;
    expect(link).toMatchObject({ clicks: 1, conversions: 0, approvedCommissionUsd: 0 });
  });

  it('should keep a conversion of an unknown click unattributed, and refuse a click of another creator', async () => {
    const foreign = await clickOf(otherCreator);
    const before = await earnings(api);

    const answer = await record(api, [
      conversion({ clickId: ulid() }),
      conversion({ clickId: foreign.recordId }),
      conversion({ status: 'maybe' }),
    ]);

    expect(answer.recorded.map((item) => [item.index, item.conversion.attributed])).toEqual([
      [0, false],
    ]);
    expect(answer.failed.map((item) => [item.index, item.error.code])).toEqual([
      [1, 'CLICK_NOT_IN_SCOPE'],
      [2, 'VALIDATION_ERROR'],
    ]);
    expect(Object.keys(answer.failed[1].error.details ?? {})).toEqual(['status']);
    const after = await earnings(api);
    expect(after.unattributedConversions - before.unattributedConversions).toBe(1);
    expect((await earnings(other)).conversions).toBe(0);
  });

  it('should refuse an empty batch and one over 1,000 items', async () => {
    const empty = await api.post('/v1/conversions', { conversions: [] });
    const tooMany = await api.post('/v1/conversions', {
      conversions: Array.from({ length: 1001 }, () => conversion({})),
    });

    expect([empty.status, empty.body.error.code]).toEqual([400, 'BULK_LIMIT_EXCEEDED']);
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'BULK_LIMIT_EXCEEDED']);
  });

  it('should count conversions and commission in the time series', async () => {
    const click = await clickOf(creator, { networkId: 'cj', region: 'US' });
    await record(api, [conversion({ clickId: click.recordId, networkId: 'cj' })]);

    const series = (
      await api
        .get(
          `/v1/analytics/timeseries?from=${FX_DAY}&to=${FX_DAY}&metric=commissionUsd&groupBy=network`,
        )
        .expect(200)
    ).body.data;
    const outcome = await api.get(
      `/v1/analytics/timeseries?from=${FX_DAY}&to=${FX_DAY}&metric=conversions&groupBy=outcome`,
    );

    expect(series.metric).toBe('commissionUsd');
    expect(series.series.find((item: { key: string }) => item.key === 'cj').buckets).toEqual([
      { start: `${FX_DAY}T00:00:00.000Z`, commissionUsd: 16 },
    ]);
    expect([outcome.status, Object.keys(outcome.body.error.details)]).toEqual([400, ['groupBy']]);
  });

  it('should count standing conversions per day and network, and per hour of a link', async () => {
    const seller = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const client = createApiClient(t, seller);
    const { linkId } = await createLinkViaApi(client, { originalUrl: buildAsosUrl() });
    const [awinClick, cjClick] = await insertClicks(t.app, seller.creatorId, [
      { clickedAt: `${FX_DAY}T09:00:00Z`, linkId, networkId: 'awin', region: 'GB' },
      { clickedAt: `${FX_DAY}T09:30:00Z`, linkId, networkId: 'cj', region: 'GB' },
    ]);
    const refunded = conversion({
      networkId: 'cj',
      clickId: cjClick.recordId,
      status: 'approved',
      occurredAt: `${FX_DAY}T13:15:00Z`,
    });
    // Standing: one awin order on the link at 10:30, one unattributed awin order; the cj
    // order is reversed.
    await record(client, [
      conversion({ clickId: awinClick.recordId, occurredAt: `${FX_DAY}T10:30:00Z` }),
      refunded,
      conversion({ occurredAt: `${FX_DAY}T13:40:00Z` }),
    ]);
    await record(client, [{ ...refunded, status: 'reversed' }]);
    const series = async (query: string) =>
      (
        await client
          .get(`/v1/analytics/timeseries?from=${FX_DAY}&to=${FX_DAY}&metric=conversions&${query}`)
          .expect(200)
      ).body.data as {
        metric: string;
        series: { key: string | null; buckets: { start: string; conversions: number }[] }[];
      };

    const daily = await series('groupBy=network');
    const hourly = await series(`interval=hour&linkId=${linkId}`);

    expect(daily.metric).toBe('conversions');
    expect(daily.series.find((item) => item.key === 'awin')?.buckets).toEqual([
      { start: `${FX_DAY}T00:00:00.000Z`, conversions: 2 },
    ]);
    // The reversed cj order counts nowhere.
    expect(daily.series.reduce((sum, item) => sum + item.buckets[0].conversions, 0)).toBe(2);
    expect(hourly.series).toHaveLength(1);
    expect(hourly.series[0].buckets).toHaveLength(24);
    expect(hourly.series[0].buckets.filter((bucket) => bucket.conversions !== 0)).toEqual([
      { start: `${FX_DAY}T10:00:00.000Z`, conversions: 1 },
    ]);
  });

  describe('postbacks', () => {
    const postback = (token: string, networkId: string, query: Record<string, string>) =>
      t.http.get(`/postbacks/${token}/${networkId}`).query(query);
    const token = async (client: ApiClient): Promise<string> =>
      (await client.post('/v1/conversions/postback-token').expect(201)).body.data.token;

    it('should attribute a postback to the click its sub-id names, once however often it is sent', async () => {
      const click = await clickOf(creator, { networkId: 'impact', region: 'US' });
      const secret = await token(api);
      const fields = {
        clickId: click.recordId,
        orderId: `IM-${ulid()}`,
        status: 'APPROVED',
        saleAmount: '50.00',
        commission: '4',
        currency: 'EUR',
        occurredAt: `${FX_DAY}T13:00:00Z`,
      };

      const first = await postback(secret, 'impact', fields);
      const before = await earnings(api);
      const again = await postback(secret, 'impact', fields);
      const posted = await t.http.post(`/postbacks/${secret}/impact`).send(fields);

      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({
        replayed: false,
        conversion: { linkId: click.linkId, status: 'approved', commissionUsd: 8 },
      });
      expect([again.status, again.body.data.replayed, posted.body.data.replayed]).toEqual([
        200,
        true,
        true,
      ]);
      expect(await earnings(api)).toEqual(before);
    });

    it('should subtract an order its network posts back as reversed', async () => {
      const { linkId } = await createLinkViaApi(api, { originalUrl: buildAsosUrl() });
      const click = await clickOf(creator, { linkId, networkId: 'impact', region: 'US' });
      const secret = await token(api);
      const fields = {
        clickId: click.recordId,
        orderId: `IM-${ulid()}`,
        status: 'APPROVED',
        saleAmount: '40.00',
        commission: '2.5',
        currency: 'EUR',
        occurredAt: `${FX_DAY}T15:00:00Z`,
      };
      await postback(secret, 'impact', fields).expect(200);
      const before = await earnings(api);

      const reversal = await postback(secret, 'impact', { ...fields, status: 'REVERSED' });

      expect(reversal.status).toBe(200);
      expect(reversal.body.data).toMatchObject({
        replayed: false,
        conversion: { linkId, status: 'reversed' },
      });
      const after = await earnings(api);
      expect(after.conversions - before.conversions).toBe(-1);
      expect(after.approvedCommissionUsd - before.approvedCommissionUsd).toBeCloseTo(-5, 6);
      const link = (await api.get(`/v1/analytics/links/${linkId}${PERIOD}`).expect(200)).body.data
        .earnings;
      expect(link).toMatchObject({ clicks: 1, conversions: 0, approvedCommissionUsd: 0 });
    });

    it('should refuse an unknown or replaced token, and the token of another creator for a click', async () => {
      const click = await clickOf(creator);
      const replaced = await token(api);
      const current = await token(api);
      const othersToken = await token(other);
      const fields = { clickId: click.recordId, orderId: `X-${ulid()}`, commission: '1' };

      const old = await postback(replaced, 'awin', fields);
      const unknown = await postback(`lp_pb_${'A'.repeat(43)}`, 'awin', fields);
      const foreign = await postback(othersToken, 'awin', fields);
      const own = await postback(current, 'awin', fields);

      expect([old.status, old.body.error.code]).toEqual([401, 'POSTBACK_TOKEN_INVALID']);
      expect([unknown.status, unknown.body.error.code]).toEqual([401, 'POSTBACK_TOKEN_INVALID']);
      expect([foreign.status, foreign.body.error.code]).toEqual([403, 'CLICK_NOT_IN_SCOPE']);
      expect([own.status, own.body.data.conversion.linkId]).toEqual([200, click.linkId]);
    });

    it('should answer 400 naming the field for a postback without an order id', async () => {
      const response = await postback(await token(api), 'awin', { commission: '1' });

      expect(response.status).toBe(400);
      expect(Object.keys(response.body.error.details)).toEqual(['orderId']);
    });
  });

  it('should write conversion.recorded and conversion.reversed to the outbox, once each', async () => {
    const order = conversion({ status: 'approved' });
    await record(api, [order, { ...order, status: 'reversed' }]);
    await record(api, [order, { ...order, status: 'reversed' }]);

    const events = await t.app.get(DataSource).query<{ type: string; status: string }[]>(
      `SELECT type, data->>'status' AS status FROM webhook_events
          WHERE creator_id = $1 AND data->>'orderId' = $2 ORDER BY id`,
      [creator.creatorId, order.orderId],
    );
    expect(events).toEqual([
      { type: 'conversion.recorded', status: 'approved' },
      { type: 'conversion.reversed', status: 'reversed' },
    ]);
  });

  it('should import a report export from the CLI with a progress bar and a per-row error report', async () => {
    const click = await clickOf(creator, { networkId: 'cj', region: 'US' });
    const orderId = `CJ-${ulid()}`;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'conversions-')), 'cj.csv');
    fs.writeFileSync(
      file,
      [
        'Order ID,SID,Action Status,Sale Amount,Commission,Currency,Event Date',
        `${orderId},${click.recordId},new,100.00,"4,00",EUR,${FX_DAY} 12:00:00`,
        `,${click.recordId},new,1,1,EUR,${FX_DAY}`,
        `${orderId}-2,,locked,10,x,EUR,${FX_DAY}`,
      ].join('\n'),
    );
    const run = async () => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(
        [
          'conversions',
          'import',
          '--creator',
          creator.creatorId,
          '--network',
          'cj',
          file,
          '--json',
        ],
        { ...process.env, LOG_LEVEL: 'fatal' },
        { out: (text) => (stdout += text), err: (text) => (stderr += text) },
      );
      return { code, json: JSON.parse(stdout) as { import: Record<string, any> }, stderr };
    };

    const first = await run();
    const second = await run();

    expect(first.code).toBe(0);
    expect(first.stderr).toContain('[##############################] 3/3 rows');
    expect(first.json.import).toMatchObject({ rows: 3, recorded: 1, replayed: 0, failed: 2 });
    expect(
      first.json.import.errors.map((error: { line: number; code: string }) => [
        error.line,
        error.code,
      ]),
    ).toEqual([
      [3, 'VALIDATION_ERROR'],
      [4, 'VALIDATION_ERROR'],
    ]);
    expect(first.json.import.errors[0].message).toContain('orderId');
    expect(first.json.import.errors[1].message).toContain('commission');
    expect(second.json.import).toMatchObject({ recorded: 0, replayed: 1, failed: 2 });
    const [row] = await t.app
      .get(DataSource)
      .query<{ link_id: string; source: string; commission_usd: string }[]>(
        `SELECT link_id, source, commission_usd FROM conversions WHERE order_id = $1`,
        [orderId],
      );
    expect([row.link_id, row.source, Number(row.commission_usd)]).toEqual([
      click.linkId,
      'import',
      8,
    ]);
  });
});
