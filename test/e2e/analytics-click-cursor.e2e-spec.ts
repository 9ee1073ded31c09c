import { encodeClickCursor } from '../../src/analytics/click-cursor';
import { ClickSeed, insertClicks } from '../factories/click.factory';
import { createCreatorWithKey } from '../factories/creator.factory';
import { ApiClient, createApiClient } from '../support/api-client';
import { startTestApp, TestApp } from '../support/test-app';

const BASE_MS = Date.parse('2026-03-14T09:00:00.000Z');
const PAGE_SIZE = 7;

/**
 * 45 clicks over two days, several at the very same millisecond (the record id breaks the
 * tie), two merchants and outcomes, so a filtered walk has its own length.
 */
const SEEDS: ClickSeed[] = Array.from({ length: 45 }, (_, i) => ({
  clickedAt: new Date(BASE_MS + Math.floor(i / 3) * 3_600_000).toISOString(),
  merchantId: i % 2 === 0 ? 'asos' : 'amazon',
  outcome: i % 5 === 0 ? 'fallback' : 'routed',
}));

interface ClickPage {
  ids: string[];
  total: number;
  page: number;
  nextCursor: string | null;
}

describe('Clicks list cursor (e2e)', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await startTestApp({ CLICK_CONSUMER_ENABLED: 'false' });
    const creator = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    api = createApiClient(t, creator);
    const other = await createCreatorWithKey(t.app, { plan: 'enterprise' });
    await insertClicks(t.app, creator.creatorId, SEEDS);
    await insertClicks(t.app, other.creatorId, SEEDS.slice(0, 10));
  });
  afterAll(() => t.close());

  async function pageOf(query: string): Promise<ClickPage> {
    const response = await api.get(`/v1/analytics/clicks?${query}`);
    expect(response.status).toBe(200);
    const { items, pagination } = response.body.data;
    return {
      ids: items.map((item: { recordId: string }) => item.recordId),
      total: pagination.total,
      page: pagination.page,
      nextCursor: pagination.nextCursor,
    };
  }

  async function walkByPage(filter: string): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const answer = await pageOf(`${filter}&limit=${PAGE_SIZE}&page=${page}`);
      if (answer.ids.length === 0) return ids;
      ids.push(...answer.ids);
    }
  }

  async function walkByCursor(filter: string): Promise<{ ids: string[]; pages: ClickPage[] }> {
    const pages = [await pageOf(`${filter}&limit=${PAGE_SIZE}`)];
    while (pages.at(-1)!.nextCursor !== null) {
      const cursor = encodeURIComponent(pages.at(-1)!.nextCursor!);
      pages.push(await pageOf(`${filter}&limit=${PAGE_SIZE}&cursor=${cursor}`));
    }
    return { ids: pages.flatMap((page) => page.ids), pages };
  }

  it.each([
    ['every click', 'from=2026-03-01'],
    ['one merchant and outcome', 'merchantId=asos&outcome=routed'],
    ['one day', 'from=2026-03-14&to=2026-03-14'],
  ])('should walk %s by cursor exactly as by page', async (_, filter) => {
    const byPage = await walkByPage(filter);
    const { ids, pages } = await walkByCursor(filter);

    expect(ids).toEqual(byPage);
    expect(new Set(ids).size).toBe(ids.length);
    // The exact total stays, and each page says where it is; the last has no cursor.
    expect(pages.map((page) => page.total)).toEqual(pages.map(() => byPage.length));
    expect(pages.map((page) => page.page)).toEqual(pages.map((_page, i) => i + 1));
    expect(pages.at(-1)!.nextCursor).toBeNull();
    expect(pages.slice(0, -1).every((page) => page.ids.length === PAGE_SIZE)).toBe(true);
  });

  it('should answer a next cursor from a numbered page too', async () => {
    const second = await pageOf(`limit=${PAGE_SIZE}&page=2`);
    const third = await pageOf(`limit=${PAGE_SIZE}&page=3`);
    const afterSecond = await pageOf(
      `limit=${PAGE_SIZE}&cursor=${encodeURIComponent(second.nextCursor!)}`,
    );

    expect(afterSecond.ids).toEqual(third.ids);
    expect(afterSecond.page).toBe(3);
  });

  it.each([
    ['not base64url', 'not a cursor!'],
    ['base64url of something else', Buffer.from('hello').toString('base64url')],
    ['too long', 'A'.repeat(201)],
  ])('should refuse a cursor that is %s with a 400 naming cursor', async (_, cursor) => {
    const response = await api.get(`/v1/analytics/clicks?cursor=${encodeURIComponent(cursor)}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(response.body.error.details)).toEqual(['cursor']);
  });

  it('should refuse page beside a cursor', async () => {
    const cursor = encodeClickCursor({ clickedAtMs: BASE_MS, recordId: 'A'.repeat(26), offset: 7 });
    const response = await api.get(`/v1/analytics/clicks?page=2&cursor=${cursor}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(response.body.error.details)).toEqual(['page']);
  });
});
