import { quotaCounterKey } from '../../src/clicks/edge-keys';
import { billingPeriodOf } from '../../src/account/billing-period';
import { CreatorsService } from '../../src/account/creators.service';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { KvStore } from '../../src/kv/kv-store';
import { runCli } from '../../src/cli/run-cli';
import { buildAmazonUrl, buildAsosUrl, LinkBody } from '../factories/api-link.factory';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

type Actor = 'live' | 'test' | 'other';
const ACTORS: Actor[] = ['live', 'test', 'other'];

/**
 * The test-key sandbox (docs/api-features.md "Test keys and the sandbox"): one Enterprise creator's live
 * key and test key, and another creator's key, each reaching for the others' records. Every
 * cross-environment or cross-creator access is a 404 or an empty list and changes nothing;
 * test clicks are recorded as test clicks and never touch the live quota or analytics.
 */
describe('Test-key sandbox (e2e)', () => {
  let t: TestApp;
  let creator: TestCreator;
  const api = {} as Record<Actor, ApiClient>;
  /** Each actor's own link, created before the matrix runs. */
  const own = {} as Record<Actor, LinkBody>;
  let nextIp = 1;

  beforeAll(async () => {
    // Clicks are drained by hand, so counts are exact when asserted; no probes.
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false', PROBES_ENABLED: 'false' });
    creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const { plan } = await t.app.get(CreatorsService).findWithPlanOrThrow(creator.creatorId);
    const testKey = await t.app.get(ApiKeysService).issue(creator.creatorId, plan, 'test', []);
    const other = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    api.live = createApiClient(t, creator);
    api.test = createApiClient(t, { ...creator, authorization: `Bearer ${testKey.apiKey}` });
    api.other = createApiClient(t, other);
    for (const actor of ACTORS) {
      own[actor] = await createOwnLink(actor);
    }
  });
  afterAll(() => t.close());

  const createOwnLink = async (actor: Actor): Promise<LinkBody> => {
    const response = await api[actor].post('/v1/links', {
      originalUrl: buildAsosUrl(),
      title: `sandbox ${actor}`,
      groupId: 'sandbox-group',
      preset: 'link_in_bio',
    });
    expect(response.status).toBe(201);
    return response.body.data.link as LinkBody;
  };
  const read = async (actor: Actor, linkId: string): Promise<LinkBody> =>
    (await api[actor].get(`/v1/links/${linkId}`).expect(200)).body.data.link as LinkBody;
  const click = (linkId: string) =>
    t.http
      .get(`/r/${linkId}`)
      .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': `198.51.100.${nextIp++ % 250}` })
      .redirects(0);
  const drain = () => t.app.get(ClickStreamConsumer).drainOnce();
  const account = async (actor: Actor) =>
    (await api[actor].get('/v1/account').expect(200)).body.data as {
      environment: string;
      clicksUsedThisPeriod: number;
    };
  const summary = async (actor: Actor) =>
    (await api[actor].get('/v1/analytics/summary').expect(200)).body.data as {
      totalClicks: number;
    };
  const clickLinkIds = async (actor: Actor, query = ''): Promise<string[]> =>
    (await api[actor].get(`/v1/analytics/clicks${query}`).expect(200)).body.data.items.map(
      (item: { linkId: string }) => item.linkId,
    );
  const liveQuotaCounter = () =>
    t.app
      .get(KvStore)
      .getString(quotaCounterKey(creator.creatorId, 'live', billingPeriodOf(Date.now()).id));

  /** Every (actor, owner) pair where the actor must not reach the owner's records. */
  const strangers: [Actor, Actor][] = ACTORS.flatMap((actor) =>
    ACTORS.filter((owner) => owner !== actor).map((owner): [Actor, Actor] => [actor, owner]),
  );

  it('should mark each link with the environment of the key that created it', () => {
    expect(own.live.environment).toBe('live');
    expect(own.test.environment).toBe('test');
    expect(own.other.environment).toBe('live');
  });

  describe.each(strangers)('a %s key on the %s key’s link', (actor, owner) => {
    it('should answer 404 LINK_NOT_FOUND to get, update and delete, and change nothing', async () => {
      const target = own[owner];
      const before = await read(owner, target.linkId);

      const answers = await Promise.all([
        api[actor].get(`/v1/links/${target.linkId}`),
        api[actor].get(`/v1/links/${target.linkId.toLowerCase()}`),
        api[actor].patch(`/v1/links/${target.linkId}`, { title: 'taken over' }),
        api[actor].patch(`/v1/links/${target.linkId}`, { passthrough: false }),
        api[actor].delete(`/v1/links/${target.linkId}`),
      ]);

      expect(answers.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
        answers.map(() => [404, 'LINK_NOT_FOUND']),
      );
      expect(await read(owner, target.linkId)).toEqual(before);
    });

    it.each([
      '',
      '?groupId=sandbox-group',
      '?preset=link_in_bio',
      '?merchantId=asos',
      '?passthrough=false',
      '?search=sandbox',
      '?createdAfter=2020-01-01T00:00:00Z',
      '?createdBefore=2999-01-01T00:00:00Z',
    ])('should never list it, with filter "%s"', async (query) => {
      const response = await api[actor].get(`/v1/links${query}`).expect(200);
      const ids = response.body.data.items.map((item: { linkId: string }) => item.linkId);
      expect(ids).not.toContain(own[owner].linkId);
      expect(ids).toContain(own[actor].linkId);
    });

    it('should never list its clicks, even filtered by its link id', async () => {
      expect(await clickLinkIds(actor, `?linkId=${own[owner].linkId}`)).toEqual([]);
    });
  });

  it('should create bulk links of a test key as test links, which a live key never sees', async () => {
    const response = await api.test
      .post('/v1/links/bulk', { links: [{ originalUrl: buildAmazonUrl() }] })
      .expect(207);
    const [created] = response.body.data.created as LinkBody[];

    expect(created.environment).toBe('test');
    const live = await api.live.get(`/v1/links/${created.linkId}`);
    expect(live.status).toBe(404);
    await api.test.get(`/v1/links/${created.linkId}`).expect(200);
  });

  it('should answer POST /route the same with both keys (it stores nothing)', async () => {
    const question = { originalUrl: buildAmazonUrl(), visitorCountry: 'US' };
    const [live, test] = await Promise.all([
      api.live.post('/v1/route', question).expect(200),
      api.test.post('/v1/route', question).expect(200),
    ]);
    expect(test.body.data.routedUrl).toBe(live.body.data.routedUrl);
    expect(test.body.data.networkId).toBe(live.body.data.networkId);
  });

  it('should redirect a test link like a live one but record a test click, leaving live usage and analytics alone', async () => {
    await drain();
    const liveBefore = {
      account: await account('live'),
      summary: await summary('live'),
      counter: await liveQuotaCounter(),
    };
    const testBefore = await account('test');

    const response = await click(own.test.linkId);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(own.test.routedUrl);
    expect(await drain()).toBe(1);

    expect(await account('live')).toEqual(liveBefore.account);
    expect(await summary('live')).toEqual(liveBefore.summary);
    expect(await liveQuotaCounter()).toBe(liveBefore.counter);
    expect(await clickLinkIds('live')).not.toContain(own.test.linkId);
    const testAfter = await account('test');
    expect(testAfter.environment).toBe('test');
    expect(testAfter.clicksUsedThisPeriod).toBe(testBefore.clicksUsedThisPeriod + 1);
    expect(await clickLinkIds('test')).toEqual([own.test.linkId]);
    expect((await summary('test')).totalClicks).toBe(1);
  });

  it('should count a live link’s click in the live environment only', async () => {
    const testBefore = await account('test');
    const liveBefore = await account('live');

    expect((await click(own.live.linkId)).status).toBe(302);
    expect(await drain()).toBe(1);

    expect((await account('live')).clicksUsedThisPeriod).toBe(liveBefore.clicksUsedThisPeriod + 1);
    expect(await account('test')).toEqual(testBefore);
    expect(await clickLinkIds('test')).not.toContain(own.live.linkId);
    expect(await clickLinkIds('live')).toContain(own.live.linkId);
  });

  describe('DELETE /v1/sandbox', () => {
    it('should refuse a live key with 403 TEST_KEY_REQUIRED and delete nothing', async () => {
      const response = await api.live.delete('/v1/sandbox');

      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('TEST_KEY_REQUIRED');
      await api.test.get(`/v1/links/${own.test.linkId}`).expect(200);
    });

    it('should remove the test links and clicks and the test usage, and leave every live record', async () => {
      const liveBefore = {
        link: await read('live', own.live.linkId),
        clicks: await clickLinkIds('live'),
        account: await account('live'),
        counter: await liveQuotaCounter(),
      };
      const conversion = {
        networkId: 'awin',
        orderId: `SANDBOX-${own.test.linkId}`,
        status: 'pending',
        saleAmount: 10,
        commission: 1,
        currency: 'USD',
        occurredAt: new Date().toISOString(),
      };
      await api.test.post('/v1/conversions', { conversions: [conversion] }).expect(207);
      await api.live.post('/v1/conversions', { conversions: [conversion] }).expect(207);

      const response = await api.test.delete('/v1/sandbox').expect(200);

      expect(response.body.data).toEqual({
        environment: 'test',
        deletedLinks: 2,
        deletedClicks: 1,
        deletedConversions: 1,
      });
      const summary = (env: 'live' | 'test') => api[env].get('/v1/analytics/summary').expect(200);
      expect((await summary('test')).body.data.earnings.conversions).toBe(0);
      expect((await summary('live')).body.data.earnings.conversions).toBe(1);
      expect((await api.test.get('/v1/links').expect(200)).body.data.items).toEqual([]);
      expect(await clickLinkIds('test')).toEqual([]);
      expect((await account('test')).clicksUsedThisPeriod).toBe(0);
      expect((await click(own.test.linkId)).status).toBe(404);
      expect(await read('live', own.live.linkId)).toEqual(liveBefore.link);
      expect(await clickLinkIds('live')).toEqual(liveBefore.clicks);
      expect(await account('live')).toEqual(liveBefore.account);
      expect(await liveQuotaCounter()).toBe(liveBefore.counter);
      expect((await click(own.live.linkId)).headers.location).toBe(own.live.routedUrl);
    });

    it('should be reachable from the CLI, which refuses an unknown creator', async () => {
      await createOwnLink('test');
      const out: string[] = [];
      const io = { out: (text: string) => out.push(text), err: () => undefined };

      const code = await runCli(
        ['sandbox', 'reset', '--creator', creator.creatorId, '--json'],
        { ...process.env, LOG_LEVEL: 'fatal' },
        io,
      );
      const unknown = await runCli(
        ['sandbox', 'reset', '--creator', '01JH2Z8Q6N3V4W5X6Y7Z8A9BCD', '--json'],
        { ...process.env, LOG_LEVEL: 'fatal' },
        io,
      );

      expect(code).toBe(0);
      expect(JSON.parse(out[0])).toEqual({
        sandbox: {
          creatorId: creator.creatorId,
          environment: 'test',
          deletedLinks: 1,
          deletedClicks: 0,
          deletedConversions: 0,
        },
      });
      expect(unknown).toBe(1);
      expect(JSON.parse(out[1]).error.code).toBe('CREATOR_NOT_FOUND');
      expect((await api.test.get('/v1/links').expect(200)).body.data.items).toEqual([]);
      await api.live.get(`/v1/links/${own.live.linkId}`).expect(200);
    });
  });
});
