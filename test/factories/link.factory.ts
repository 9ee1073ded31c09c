import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { LinkEntity } from '../../src/links/link.entity';

const EXAMPLE_ROUTED_URL = 'https://www.example-merchant.test/p/1?utm_source=linkpilot';

/**
 * Inserts a link row directly (no routing): a passthrough link to a merchant outside the
 * knowledge base, as the links service would store it, with fresh probe state. Any field
 * can be overridden; `routedUrl` also becomes the original URL unless that is given.
 */
export async function createLink(
  app: INestApplication,
  fields: Partial<LinkEntity> & { creatorId: string },
): Promise<LinkEntity> {
  const routedUrl = fields.routedUrl ?? EXAMPLE_ROUTED_URL;
  const repository = app.get(DataSource).getRepository(LinkEntity);
  return repository.save(
    repository.create({
      id: ulid(),
      environment: 'live',
      title: 'Example merchant product',
      originalUrl: routedUrl,
      canonicalUrl: '',
      routedUrl,
      merchantId: null,
      region: null,
      networkId: null,
      preset: 'default',
      category: null,
      passthroughEnabled: true,
      passthroughReason: 'www.example-merchant.test is not a supported merchant',
      passthroughEnabledAt: new Date(),
      networkOverride: null,
      utmOverride: null,
      groupId: null,
      notes: null,
      visitorCountry: 'US',
      deviceType: 'desktop',
      outcome: 'passthrough',
      routingReason: 'unsupported_merchant',
      confidence: 100,
      confidenceFactor: 1,
      normalizedEpcUsd: 0,
      deepLinkUsed: false,
      crcTrace: {},
      healthStatus: 'unknown',
      deepLinkStatus: 'unchecked',
      deepLinkCheckedAt: null,
      lastHealthCheckAt: null,
      deletedAt: null,
      ...fields,
    }),
  );
}
