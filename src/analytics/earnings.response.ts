import { ApiProperty } from '@nestjs/swagger';
import type { EarningsFigures, EarningsGroups } from './conversion-rollup-reads.repository';

/** A group's conversions and commission beside its counted clicks. */
class EarningsFiguresResponse {
  @ApiProperty({ minimum: 0, description: 'Counted clicks of the group' }) clicks: number;
  @ApiProperty({
    description:
      'Orders standing (pending or approved; reversed ones taken out), by the day of their first status',
  })
  conversions: number;
  @ApiProperty({ description: 'USD at each order’s occurredAt rates, net of reversals' })
  approvedCommissionUsd: number;
  @ApiProperty({ description: 'USD, not yet approved by the network' })
  pendingCommissionUsd: number;
  @ApiProperty({ description: 'conversions / clicks; 0 with no clicks' }) conversionRate: number;
  @ApiProperty({
    description: 'Realised EPC: (approved + pending commission) / clicks, in USD; 0 with no clicks',
  })
  realisedEpcUsd: number;
}

export class NetworkEarningsResponse extends EarningsFiguresResponse {
  @ApiProperty({ example: 'awin' }) networkId: string;
}

export class RegionEarningsResponse extends EarningsFiguresResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The route's region; null for clicks and conversions without one",
  })
  region: string | null;
}

/**
 * Earnings of a period: the networks' conversions recorded for it (README "Conversions"),
 * from the conversion rollups, with the clicks of the same groups from the click rollups.
 */
export class EarningsResponse extends EarningsFiguresResponse {
  @ApiProperty({ type: [NetworkEarningsResponse], description: 'Most commission first' })
  byNetwork: NetworkEarningsResponse[];
  @ApiProperty({ type: [RegionEarningsResponse], description: 'Most commission first' })
  byRegion: RegionEarningsResponse[];
}

export class SummaryEarningsResponse extends EarningsResponse {
  @ApiProperty({
    description:
      'Conversions with no stored click of the key’s scope behind them: counted in the totals and per network, under region null',
  })
  unattributedConversions: number;
}

const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;

function toEarningsFigures(figures: EarningsFigures): EarningsFiguresResponse {
  const commission = figures.approvedCommissionUsd + figures.pendingCommissionUsd;
  return {
    clicks: figures.clicks,
    conversions: figures.conversions,
    approvedCommissionUsd: round6(figures.approvedCommissionUsd),
    pendingCommissionUsd: round6(figures.pendingCommissionUsd),
    conversionRate: figures.clicks === 0 ? 0 : round6(figures.conversions / figures.clicks),
    realisedEpcUsd: figures.clicks === 0 ? 0 : round6(commission / figures.clicks),
  };
}

export function toEarningsResponse(groups: EarningsGroups): EarningsResponse {
  return {
    ...toEarningsFigures(groups.totals),
    byNetwork: groups.byNetwork.map((group) => ({
      networkId: group.networkId,
      ...toEarningsFigures(group),
    })),
    byRegion: groups.byRegion.map((group) => ({
      region: group.region,
      ...toEarningsFigures(group),
    })),
  };
}
