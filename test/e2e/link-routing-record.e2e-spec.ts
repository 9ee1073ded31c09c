import { DataSource, Repository } from 'typeorm';
import { ulid } from 'ulid';
import { LinkEntity } from '../../src/links/link.entity';
import { LinkRoutingRecord, toLinkRoutingRecord } from '../../src/links/link-routing-record';
import { LinksService } from '../../src/links/links.service';
import { createCreatorWithKey } from '../factories/creator.factory';
import { createLink } from '../factories/link.factory';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The edge reads a link's routing record with a statement of its own (only the columns the
 * record needs): the record must be exactly the one the whole entity gives, field for field
 * and in the same order (the Redis copy is its JSON).
 */
describe('Link routing record read (e2e)', () => {
  let t: TestApp;
  let links: Repository<LinkEntity>;
  let creatorId: string;

  beforeAll(async () => {
    t = await startTestApp();
    links = t.app.get(DataSource).getRepository(LinkEntity);
    ({ creatorId } = await createCreatorWithKey(t.app, { plan: 'publisher' }));
  });
  afterAll(() => t.close());

  const findRoutingRecord = async (linkId: string): Promise<LinkRoutingRecord | null> =>
    (await t.app.get(LinksService).findRoutingRecords([linkId])).get(linkId) ?? null;

  const routedFields: Partial<LinkEntity> = {
    originalUrl: 'https://www.amazon.com/dp/B000TEST01?ref=x',
    canonicalUrl: 'https://www.amazon.com/dp/B000TEST01',
    routedUrl: 'https://www.amazon.com/dp/B000TEST01?tag=creator-20',
    merchantId: 'amazon',
    region: 'US',
    networkId: 'amazon_associates',
    preset: 'default',
    category: 'electronics',
    passthroughEnabled: false,
    passthroughReason: null,
    passthroughEnabledAt: null,
    outcome: 'routed',
    routingReason: 'best_epc',
    confidence: 88,
    confidenceFactor: 0.8765,
    normalizedEpcUsd: 12.345678,
    deepLinkUsed: true,
    crcTrace: {
      candidates: [{ networkId: 'amazon_associates', epc: 1.23 }],
      note: 'x'.repeat(2000),
    },
  };

  const cases: [string, Partial<LinkEntity>][] = [
    ['a passthrough link outside the knowledge base (the factory default)', {}],
    ['a routed link with no overrides', routedFields],
    [
      'a routed link with a network pin that expires, a UTM override and query forwarding',
      {
        ...routedFields,
        networkOverride: {
          networkId: 'impact',
          expiresAt: '2031-02-03T04:05:06.789Z',
          reason: 'negotiated rate',
        },
        utmOverride: { utm_source: 'newsletter', utm_campaign: 'spring' },
        forwardQuery: true,
      },
    ],
    [
      'a link with a pin that never expires, and probe results',
      {
        ...routedFields,
        outcome: 'fallback',
        networkOverride: { networkId: 'impact' },
        deepLinkStatus: 'invalid',
        healthStatus: 'critical',
        deepLinkCheckedAt: new Date(),
        lastHealthCheckAt: new Date(),
      },
    ],
    [
      'a link created in passthrough, then taken out of it (never routed)',
      {
        ...routedFields,
        passthroughEnabled: false,
        routingReason: 'passthrough_requested',
        outcome: 'passthrough',
        deepLinkStatus: 'validated',
        healthStatus: 'ok',
      },
    ],
    [
      'a routed link put in passthrough, in the test environment',
      {
        ...routedFields,
        environment: 'test',
        passthroughEnabled: true,
        passthroughReason: 'merchant asked',
        passthroughEnabledAt: new Date(),
        deepLinkStatus: 'ttl_expired',
        healthStatus: 'warning',
        normalizedEpcUsd: 0.000001,
        confidenceFactor: 0.0001,
      },
    ],
  ];

  it.each(cases)('should read %s as the whole entity maps it', async (_name, fields) => {
    const { id } = await createLink(t.app, { creatorId, ...fields });
    const expected = toLinkRoutingRecord(await links.findOneByOrFail({ id }));

    const record = await findRoutingRecord(id);

    expect(record).toStrictEqual(expected);
    expect(JSON.stringify(record)).toBe(JSON.stringify(expected));
    expect(record?.version).toMatch(/^\d{13}\|[a-z_]+\|[a-z_]+$/);
  });

  it('should read no record for a deleted link or an unknown id', async () => {
    const { id } = await createLink(t.app, { creatorId, deletedAt: new Date() });

    expect(await findRoutingRecord(id)).toBeNull();
    expect(await findRoutingRecord(ulid())).toBeNull();
  });

  it('should read several links in one call, each its own, leaving out the deleted and unknown', async () => {
    const first = await createLink(t.app, { creatorId });
    const second = await createLink(t.app, {
      creatorId,
      originalUrl: 'https://www.amazon.com/dp/B000TEST02',
    });
    const deleted = await createLink(t.app, { creatorId, deletedAt: new Date() });

    const records = await t.app
      .get(LinksService)
      .findRoutingRecords([first.id, deleted.id, ulid(), second.id]);

    expect([...records.keys()].sort()).toEqual([first.id, second.id].sort());
    expect(records.get(first.id)).toStrictEqual(
      toLinkRoutingRecord(await links.findOneByOrFail({ id: first.id })),
    );
    expect(records.get(second.id)).toStrictEqual(
      toLinkRoutingRecord(await links.findOneByOrFail({ id: second.id })),
    );
  });
});
