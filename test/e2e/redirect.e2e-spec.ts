import { DataSource } from 'typeorm';
import { CreatorsService } from '../../src/account/creators.service';
import { ClickStreamConsumer } from '../../src/analytics/click-stream.consumer';
import { NetworkAccountsService } from '../../src/networks/network-accounts.service';
import { CreatorEdgeProfilesService } from '../../src/redirect/creator-edge-profiles.service';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { pollUntil } from '../support/poll';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36';
const AMAZON_URL =
  'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3?tag=x-20';
const UNSUPPORTED_URL = 'https://shop.example.com/p/Some%20Thing?b=2&a=1&a=0#frag';

describe('Edge redirector (e2e)', () => {
  let t: TestApp;
  const clock = new TestClock();
  let nextIp = 1;
  /** A fresh client address per call, so the per-IP window never caps tests that do not test it. */
  const freshIp = (): string => `198.51.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;

  beforeAll(async () => {
    // The consumer is driven by hand (drainOnce) so counts are exact when asserted.
    t = await startTestApp(
      { CLICK_CONSUMER_ENABLED: 'false', REDIRECT_BASE_URL: 'https://go.linkpilot.test' },
      { clock },
    );
  });
  afterEach(() => clock.resume());
  afterAll(() => t.close());

  /**
   * The edge windows are exact within one minute bucket (README: sliding-window counters);
   * a test of a limit must not straddle a minute boundary, so time stands at a minute's start.
   */
  const freezeAtNextMinute = () => clock.freezeAt(Math.ceil(Date.now() / 60_000) * 60_000);

  const createLink = async (creator: TestCreator, body: Record<string, unknown>) => {
    const response = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send(body);
    expect(response.status).toBe(201);
    return response.body.data.link as { linkId: string; routedUrl: string; linkpilotUrl: string };
  };
  const click = (linkId: string, headers: Record<string, string> = {}) =>
    t.http
      .get(`/r/${linkId}`)
      .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': freshIp(), ...headers })
      .redirects(0);
  const account = async (creator: TestCreator) =>
    (await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200)).body
      .data as {
      clicksUsedThisPeriod: number;
      clicksIncludedThisPeriod: number;
      clicksRemainingThisPeriod: number;
    };
  const drain = () => t.app.get(ClickStreamConsumer).drainOnce();
  const clickRows = (linkId: string) =>
    t.app
      .get(DataSource)
      .query<Record<string, unknown>[]>(
        `SELECT * FROM clicks WHERE link_id = $1 ORDER BY clicked_at`,
        [linkId],
      );

  it('should hand out the redirect URL on the configured base', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    expect(link.linkpilotUrl).toBe(`https://go.linkpilot.test/r/${link.linkId}`);
  });

  it('should route a click with a 302, count it and record it once', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const response = await click(link.linkId, { 'CF-IPCountry': 'US' });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(link.routedUrl);
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect((await account(creator)).clicksUsedThisPeriod).toBe(1);
    await drain();
    const rows = await clickRows(link.linkId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      merchant_id: 'amazon',
      region: 'US',
      network_id: 'amazon_associates',
      outcome: 'routed',
      visitor_country: 'US',
      device_class: 'desktop',
    });
    expect(Object.keys(rows[0])).not.toEqual(expect.arrayContaining(['ip', 'user_agent']));
  });

  it('should send a visitor from another country to that country’s storefront', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const response = await click(link.linkId, { 'CF-IPCountry': 'IN', 'User-Agent': ANDROID_UA });
    expect(response.status).toBe(302);
    expect(new URL(String(response.headers.location)).hostname).toBe('www.amazon.in');
    await drain();
    expect((await clickRows(link.linkId))[0]).toMatchObject({
      region: 'IN',
      visitor_country: 'IN',
      device_class: 'mobile',
    });
  });

  it('should serve the stored route when nothing is known about the visitor', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const response = await t.http
      .get(`/r/${link.linkId}`)
      .set('X-Forwarded-For', freshIp())
      .redirects(0);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(link.routedUrl);
  });

  it('should send a passthrough link to the original URL byte for byte, counted and recorded', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: UNSUPPORTED_URL });
    const response = await click(link.linkId, { 'CF-IPCountry': 'DE' });
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(UNSUPPORTED_URL);
    expect((await account(creator)).clicksUsedThisPeriod).toBe(1);
    await drain();
    expect((await clickRows(link.linkId))[0]).toMatchObject({
      outcome: 'passthrough',
      merchant_id: null,
      network_id: null,
    });
  });

  it.each([
    [
      'a crawler user agent',
      { 'User-Agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
    ],
    ['a link-preview fetcher', { 'User-Agent': 'facebookexternalhit/1.1' }],
    ['an edge bot score below 30', { 'X-Bot-Score': '12' }],
  ])('should pass %s to the original URL without counting it', async (_name, headers) => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const response = await click(link.linkId, headers);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(AMAZON_URL);
    expect((await account(creator)).clicksUsedThisPeriod).toBe(0);
    await drain();
    expect(await clickRows(link.linkId)).toHaveLength(0);
  });

  it('should treat a HEAD request like a bot and a bot score of 0 as not scored', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const head = await t.http
      .head(`/r/${link.linkId}`)
      .set('X-Forwarded-For', freshIp())
      .redirects(0);
    expect(head.status).toBe(302);
    expect(head.headers.location).toBe(AMAZON_URL);
    const unscored = await click(link.linkId, { 'X-Bot-Score': '0' });
    expect(unscored.headers.location).toBe(link.routedUrl);
    expect((await account(creator)).clicksUsedThisPeriod).toBe(1);
  });

  it('should refuse the 201st click from one address in a minute with a 429 to the original URL', async () => {
    freezeAtNextMinute();
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    const ip = '203.0.113.77';
    for (let i = 0; i < 200; i++) {
      const response = await click(link.linkId, { 'X-Forwarded-For': ip });
      expect(response.status).toBe(302);
    }
    const refused = await click(link.linkId, { 'X-Forwarded-For': ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBe(AMAZON_URL);
    expect(refused.headers['content-type']).toMatch(/text\/html/);
    expect(refused.text).toContain(
      'href="https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3?tag=x-20"',
    );
    expect((await click(link.linkId)).status).toBe(302);
    expect((await account(creator)).clicksUsedThisPeriod).toBe(201);
  });

  it('should refuse clicks over the creator’s per-minute edge limit (Creator plan: 200)', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'creator' });
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'creator' });
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the edge re-reads plans every second
    freezeAtNextMinute();
    for (let i = 0; i < 200; i++) expect((await click(link.linkId)).status).toBe(302);
    const refused = await click(link.linkId);
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBe(AMAZON_URL);
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'publisher' });
    expect((await account(creator)).clicksUsedThisPeriod).toBe(200);
  });

  it('should give a Free creator at its quota the original URL without counting', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher', includedClicks: 2 });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'free' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await click(link.linkId)).headers.location).toBe(link.routedUrl);
    expect((await click(link.linkId)).headers.location).toBe(link.routedUrl);
    const capped = await click(link.linkId);
    expect(capped.status).toBe(302);
    expect(capped.headers.location).toBe(AMAZON_URL);
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'publisher' });
    expect(await account(creator)).toMatchObject({
      clicksUsedThisPeriod: 2,
      clicksRemainingThisPeriod: 0,
    });
    await drain();
    expect(await clickRows(link.linkId)).toHaveLength(2);
  });

  it('should apply a creator’s plan change to its clicks at the next profile refresh', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher', includedClicks: 1 });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    expect((await click(link.linkId)).headers.location).toBe(link.routedUrl);
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'free' });
    await click(link.linkId); // served from the profile in memory, whichever plan it holds
    await t.app.get(CreatorEdgeProfilesService).refreshInUse();
    // Free now: the quota of one is used up, so the visitor gets the original URL, uncounted.
    const capped = await click(link.linkId);
    expect(capped.headers.location).toBe(AMAZON_URL);
    await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'publisher' });
  });

  it('should keep an unchanged creator profile as the same object across refreshes', async () => {
    // The click router's memoised routes hold per profile object: a refresh that changed
    // nothing must not hand out a new one (every link's routes would be decided again).
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    await click(link.linkId);
    const profiles = t.app.get(CreatorEdgeProfilesService);
    const before = profiles.find(creator.creatorId);
    await profiles.refreshInUse();
    expect(profiles.find(creator.creatorId)).toBe(before);
    await t.app.get(CreatorsService).update(creator.creatorId, { includedClicksOverride: 12_345 });
    // The change log names the creator: this pass reads it, unless the service's own
    // one-second pass already has (this one waits for a pass under way).
    await profiles.refreshChanged();
    const after = profiles.find(creator.creatorId);
    expect(after).not.toBe(before);
    expect(after).toMatchObject({ includedClicks: 12_345 });
  });

  describe('profile refresh from the change log', () => {
    const profiles = () => t.app.get(CreatorEdgeProfilesService);
    const profileOf = async (creator: TestCreator) => profiles().find(creator.creatorId);
    /** A creator whose profile is cached, and one of its links. */
    const cachedCreator = async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
      expect((await click(link.linkId)).status).toBe(302);
      return { creator, link };
    };
    /**
     * Stops the test clock and runs the once-a-minute pass (creators clicked since the last
     * one): until the clock moves, the service's own passes read only what the change log
     * names, so a profile a test finds changed was read because of the log.
     */
    const holdInUsePasses = async () => {
      clock.freezeAt(Date.now());
      await profiles().refreshInUse();
    };
    /** Every creator id the account module's edge read is asked for while `work` runs. */
    const creatorsReadDuring = async (work: () => Promise<void>) => {
      const read = jest.spyOn(t.app.get(CreatorsService), 'readEdgeLimits');
      try {
        await work();
        return read.mock.calls.flatMap(([creatorIds]) => creatorIds);
      } finally {
        read.mockRestore();
      }
    };

    it('should apply a plan change to a creator not clicked since, at the next pass', async () => {
      const { creator } = await cachedCreator();
      await holdInUsePasses();
      expect(await profileOf(creator)).toMatchObject({ isHardCap: false });
      await t.app.get(CreatorsService).update(creator.creatorId, { planId: 'free' });
      await profiles().refreshChanged();
      expect(await profileOf(creator)).toMatchObject({ isHardCap: true });
    });

    it('should apply network accounts set and deleted, by the service or raw SQL', async () => {
      const { creator } = await cachedCreator();
      await holdInUsePasses();
      const accounts = t.app.get(NetworkAccountsService);
      await accounts.set(creator.creatorId, 'awin', 'awin-changed');
      await t.app
        .get(DataSource)
        .query(`DELETE FROM network_accounts WHERE creator_id = $1 AND network_id = 'cj'`, [
          creator.creatorId,
        ]);
      await profiles().refreshChanged();
      const changed = await profileOf(creator);
      expect(changed?.affiliateIds).toMatchObject({ awin: 'awin-changed' });
      expect(changed?.affiliateIds.cj).toBeUndefined();

      await accounts.set(creator.creatorId, 'cj', 'cj-new');
      await accounts.remove(creator.creatorId, 'impact');
      await profiles().refreshChanged();
      const added = await profileOf(creator);
      expect(added?.affiliateIds).toMatchObject({ awin: 'awin-changed', cj: 'cj-new' });
      expect(added?.affiliateIds.impact).toBeUndefined();
    });

    it('should read every cached creator again after a plan row changes', async () => {
      const { creator } = await cachedCreator();
      await holdInUsePasses();
      const read = await creatorsReadDuring(async () => {
        // Changed and put back in one transaction: logged, but no other suite on this
        // database ever sees the plan changed.
        await t.app.get(DataSource).transaction(async (manager) => {
          await manager.query(
            `UPDATE plans SET included_clicks = included_clicks + 1 WHERE id = 'publisher'`,
          );
          await manager.query(
            `UPDATE plans SET included_clicks = included_clicks - 1 WHERE id = 'publisher'`,
          );
        });
        await profiles().refreshChanged();
      });
      expect(read).toContain(creator.creatorId);
    });

    it('should read no creator in a pass when nothing changed, clicked or not', async () => {
      const { creator, link } = await cachedCreator();
      await holdInUsePasses();
      expect((await click(link.linkId)).status).toBe(302);
      // Changes made before (earlier tests) are read by this pass, not the measured ones.
      await profiles().refreshChanged();
      const read = await creatorsReadDuring(async () => {
        await profiles().refreshChanged();
        await profiles().refreshChanged();
      });
      expect(read).toEqual([]);
      expect(await profileOf(creator)).not.toBeNull();
    });

    it('should read the creators clicked once a minute, so a change the log missed arrives', async () => {
      const { creator, link } = await cachedCreator();
      await holdInUsePasses();
      const includedClicks = (await profileOf(creator))?.includedClicks;
      // A change whose log rows are deleted before it commits: no pass ever sees them.
      await t.app.get(DataSource).transaction(async (manager) => {
        await manager.query(`UPDATE creators SET included_clicks_override = 4321 WHERE id = $1`, [
          creator.creatorId,
        ]);
        await manager.query(`DELETE FROM edge_profile_changes WHERE creator_id = $1`, [
          creator.creatorId,
        ]);
      });
      expect((await click(link.linkId)).status).toBe(302);
      await profiles().refreshChanged();
      expect(await profileOf(creator)).toMatchObject({ includedClicks });
      // A minute on the service's clock: its own timer runs the pass of the creators clicked.
      clock.advance(60_000);
      const refreshed = await pollUntil(
        () => profileOf(creator),
        (profile) => profile?.includedClicks === 4321,
      );
      expect(refreshed).toMatchObject({ includedClicks: 4321 });
    });
  });

  it('should count a paid creator’s clicks over quota as overage', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher', includedClicks: 1 });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    for (let i = 0; i < 3; i++)
      expect((await click(link.linkId)).headers.location).toBe(link.routedUrl);
    expect(await account(creator)).toMatchObject({
      clicksUsedThisPeriod: 3,
      clicksIncludedThisPeriod: 1,
      clicksRemainingThisPeriod: 0,
    });
  });

  it('should answer 404 for a deleted or unknown link, at once', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    expect((await click(link.linkId)).status).toBe(302);
    await t.http
      .delete(`/v1/links/${link.linkId}`)
      .set('Authorization', creator.authorization)
      .expect(200);
    const gone = await click(link.linkId);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('LINK_NOT_FOUND');
    expect((await click('01ZZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
    expect((await click('not-a-link')).status).toBe(404);
  });

  it('should follow an update at once (passthrough turned on)', async () => {
    const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
    const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
    expect((await click(link.linkId)).headers.location).toBe(link.routedUrl);
    await t.http
      .patch(`/v1/links/${link.linkId}`)
      .set('Authorization', creator.authorization)
      .send({ passthrough: true, passthroughReason: 'brand deal' })
      .expect(200);
    expect((await click(link.linkId)).headers.location).toBe(AMAZON_URL);
  });

  describe('its two fronts (raw node:http for plain clicks, Fastify for the rest)', () => {
    const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

    it('should answer a plain click with the headers every answer of the service carries', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
      const response = await click(link.linkId);
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(link.routedUrl);
      expect(response.headers['cache-control']).toBe('private, no-store');
      expect(response.headers['x-request-id']).toMatch(ULID);
      expect(response.headers.vary).toBe('Origin');
    });

    it('should answer clicks that Fastify serves (an Origin, an id to decode) like a plain click', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'IN' });
      const visitor = { 'CF-IPCountry': 'IN' };
      const plain = await click(link.linkId, visitor);
      const withOrigin = await click(link.linkId, {
        ...visitor,
        Origin: 'https://app.linkpilot.io',
      });
      const encodedId = `%${link.linkId.charCodeAt(0).toString(16)}${link.linkId.slice(1)}`;
      const encoded = await click(encodedId, visitor);
      for (const response of [plain, withOrigin, encoded]) {
        expect(response.status).toBe(302);
        expect(response.headers.location).toBe(plain.headers.location);
        expect(response.headers['cache-control']).toBe('private, no-store');
        expect(response.headers['x-request-id']).toMatch(ULID);
      }
      expect(plain.headers.location).toContain('amazon.in');
      expect(withOrigin.headers['access-control-allow-origin']).toBe('https://app.linkpilot.io');
      expect((await account(creator)).clicksUsedThisPeriod).toBe(3);
      await drain();
      expect(await clickRows(link.linkId)).toHaveLength(3);
    });

    it('should send a click that a trusted proxy reports as plain HTTP to https, uncounted', async () => {
      const creator = await createCreatorWithKey(t.app, { plan: 'publisher' });
      const link = await createLink(creator, { originalUrl: AMAZON_URL, visitorCountry: 'US' });
      const response = await click(link.linkId, {
        'X-Forwarded-Proto': 'http',
        Host: 'go.linkpilot.test',
      });
      expect(response.status).toBe(301);
      expect(response.headers.location).toBe(`https://go.linkpilot.test/r/${link.linkId}`);
      expect((await account(creator)).clicksUsedThisPeriod).toBe(0);
    });

    it('should answer an unknown link with the error envelope from either front', async () => {
      const plain = await click('01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      const viaFastify = await click('01ZZZZZZZZZZZZZZZZZZZZZZZZ', {
        Origin: 'https://app.linkpilot.io',
      });
      for (const response of [plain, viaFastify]) {
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toContain('application/json');
        expect(response.body).toEqual({
          success: false,
          error: {
            code: 'LINK_NOT_FOUND',
            message: 'No such link.',
            requestId: response.headers['x-request-id'],
          },
        });
      }
    });
  });

  it('should ignore edge headers from a peer that is not a trusted proxy', async () => {
    const untrusted = await startTestApp({ TRUST_PROXY: 'none', CLICK_CONSUMER_ENABLED: 'false' });
    try {
      const creator = await createCreatorWithKey(untrusted.app, { plan: 'publisher' });
      const created = await untrusted.http
        .post('/v1/links')
        .set('Authorization', creator.authorization)
        .send({ originalUrl: AMAZON_URL, visitorCountry: 'US' })
        .expect(201);
      const { linkId, routedUrl } = created.body.data.link as { linkId: string; routedUrl: string };
      const response = await untrusted.http
        .get(`/r/${linkId}`)
        .set({ 'User-Agent': BROWSER_UA, 'CF-IPCountry': 'IN', 'X-Bot-Score': '5' })
        .redirects(0);
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(routedUrl);
    } finally {
      await untrusted.close();
    }
  });
});
