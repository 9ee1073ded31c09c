import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ulid } from 'ulid';
import { ClickEntity } from '../../src/analytics/click.entity';

/** What a test states about a click; the rest gets plausible routed-click defaults. */
export type ClickSeed = Partial<Omit<ClickEntity, 'clickedAt' | 'creatorId'>> & {
  clickedAt: string | Date;
};

/** A click row of this creator, with a ULID record id made at its clickedAt. */
function buildClick(creatorId: string, seed: ClickSeed): ClickEntity {
  const clickedAt = new Date(seed.clickedAt);
  return Object.assign(new ClickEntity(), {
    recordId: ulid(clickedAt.getTime()),
    linkId: ulid(clickedAt.getTime()),
    merchantId: 'asos',
    region: 'GB',
    networkId: 'awin',
    preset: 'default',
    outcome: 'routed',
    normalizedEpcUsd: 0.42,
    confidence: 0.95,
    deepLinkUsed: false,
    privateDealApplied: false,
    visitorCountry: 'GB',
    deviceClass: 'desktop',
    environment: 'live',
    ruleIndex: null,
    source: 'link',
    ...seed,
    creatorId,
    clickedAt,
  } satisfies ClickEntity);
}

/**
 * Inserts the creator's clicks straight into the partitioned table (as the stream consumer
 * does; the table's triggers keep the click rollups) and answers the rows as stored, for
 * tests to compute expected answers from.
 */
export async function insertClicks(
  app: INestApplication,
  creatorId: string,
  seeds: ClickSeed[],
): Promise<ClickEntity[]> {
  const clicks = seeds.map((seed) => buildClick(creatorId, seed));
  await app.get(DataSource).getRepository(ClickEntity).insert(clicks);
  return clicks;
}
