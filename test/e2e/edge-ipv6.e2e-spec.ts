import { EDGE_IP_LIMIT_PER_MINUTE } from '../../src/clicks/quota.service';
import { createCreatorWithKey, TestCreator } from '../factories/creator.factory';
import { startTestApp, TestApp } from '../support/test-app';
import { TestClock } from '../support/test-clock';

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const AMAZON_URL =
  'https://www.amazon.com/Apple-AirPods-Pro-2nd-Generation/dp/B0BDHWDR12/ref=sr_1_3?tag=x-20';

const hex = (n: number): string => (n & 0xffff).toString(16);
/** The i-th of many addresses inside `prefix64` (four hextets), each with its own interface id. */
const addressIn = (prefix64: string, i: number): string =>
  `${prefix64}:${hex(i)}:${hex(i * 31 + 7)}:${hex(i * 131 + 3)}:${hex(i * 977 + 1)}`;

describe('Edge per-IP window for IPv6 visitors (e2e)', () => {
  let t: TestApp;
  const clock = new TestClock();

  beforeAll(async () => {
    // The test client is on loopback, a trusted proxy by default, so X-Forwarded-For is the
    // visitor's address, as a CDN in front of the edge would send it.
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' }, { clock });
  });
  afterEach(() => clock.resume());
  afterAll(() => t.close());

  /**
   * The edge windows are exact within one minute bucket (README: sliding-window counters);
   * a test of a limit must not straddle a minute boundary, so time stands at a minute's start.
   */
  const freezeAtNextMinute = () => clock.freezeAt(Math.ceil(Date.now() / 60_000) * 60_000);

  /** An Enterprise creator, whose own per-minute limit stays far above the per-IP one. */
  const createLink = async (): Promise<{
    creator: TestCreator;
    linkId: string;
    routedUrl: string;
  }> => {
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    const response = await t.http
      .post('/v1/links')
      .set('Authorization', creator.authorization)
      .send({ originalUrl: AMAZON_URL, visitorCountry: 'US' });
    expect(response.status).toBe(201);
    const { linkId, routedUrl } = response.body.data.link as { linkId: string; routedUrl: string };
    return { creator, linkId, routedUrl };
  };
  const click = (linkId: string, clientIp: string) =>
    t.http
      .get(`/r/${linkId}`)
      .set({ 'User-Agent': BROWSER_UA, 'X-Forwarded-For': clientIp })
      .redirects(0);
  const clicksUsed = async (creator: TestCreator): Promise<number> =>
    (await t.http.get('/v1/account').set('Authorization', creator.authorization).expect(200)).body
      .data.clicksUsedThisPeriod as number;

  it('should refuse the 201st click from a /64 whose visitor rotates addresses, and still serve the next /64', async () => {
    freezeAtNextMinute();
    const { creator, linkId, routedUrl } = await createLink();
    for (let i = 0; i < EDGE_IP_LIMIT_PER_MINUTE; i++) {
      const response = await click(linkId, addressIn('2001:db8:4a:7f', i));
      expect(response.status).toBe(302);
    }
    // Yet another interface id, in another spelling of the same /64.
    const refused = await click(linkId, '2001:0DB8:004A:007F:FFFF:FFFF:FFFF:FFFF');
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBe(AMAZON_URL);
    const neighbour = await click(linkId, '2001:db8:4a:80::1');
    expect(neighbour.status).toBe(302);
    expect(neighbour.headers.location).toBe(routedUrl);
    expect(await clicksUsed(creator)).toBe(EDGE_IP_LIMIT_PER_MINUTE + 1);
  });

  it('should count an IPv4-mapped visitor against the window of its IPv4 address', async () => {
    freezeAtNextMinute();
    const { linkId } = await createLink();
    for (let i = 0; i < EDGE_IP_LIMIT_PER_MINUTE; i++) {
      const clientIp = i % 2 === 0 ? '203.0.113.90' : '::ffff:203.0.113.90';
      expect((await click(linkId, clientIp)).status).toBe(302);
    }
    expect((await click(linkId, '203.0.113.90')).status).toBe(429);
    expect((await click(linkId, '::ffff:203.0.113.90')).status).toBe(429);
    expect((await click(linkId, '203.0.113.91')).status).toBe(302);
  });
});
