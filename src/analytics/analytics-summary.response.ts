import { SummaryEarningsResponse } from './earnings.response';
import type { ExcludedHitReason } from './excluded-hits';
import { ExcludedHitsResponse, RevenueNotEarnedResponse } from './link-analytics.response';
import { ApiProperty } from '@nestjs/swagger';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import { ROUTING_PRESET_IDS } from '../routing/engine/routing-types';
import type { RoutingPresetId } from '../routing/engine/routing-types';

export const UNKNOWN_MERCHANT_DISPLAY_NAME = 'Unknown merchant';

export class MerchantBreakdownResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'null groups the clicks whose merchant is unknown',
  })
  merchantId: string | null;
  @ApiProperty({ example: 'ASOS', description: `"${UNKNOWN_MERCHANT_DISPLAY_NAME}" for null` })
  merchantDisplayName: string;
  @ApiProperty({ minimum: 1 }) clicks: number;
  @ApiProperty({ minimum: 0, description: 'Mean normalizedEpcUsd of these clicks' })
  averageEpcUsd: number;
}

export class NetworkBreakdownResponse {
  @ApiProperty({ enum: NETWORK_IDS })
  networkId: NetworkId;
  @ApiProperty({ minimum: 1 }) clicks: number;
  @ApiProperty({ minimum: 0, description: 'Mean normalizedEpcUsd of these clicks' })
  averageEpcUsd: number;
}

export class PresetBreakdownResponse {
  @ApiProperty({ enum: ROUTING_PRESET_IDS }) preset: RoutingPresetId;
  @ApiProperty({ minimum: 1 }) clicks: number;
}

/**
 * Analytics summary [S]. Each breakdown is ordered by clicks (most first), then by id (null
 * last). byMerchant and byPreset add up to totalClicks; byNetwork to totalClicks -
 * passthroughClicks (a passthrough click went through no network).
 */
export class AnalyticsSummaryResponse {
  @ApiProperty({ format: 'date', example: '2026-03-01', description: 'Inclusive' })
  periodStart: string;
  @ApiProperty({ format: 'date', example: '2026-03-31', description: 'Inclusive' })
  periodEnd: string;
  @ApiProperty({ minimum: 0 }) totalClicks: number;
  @ApiProperty({ minimum: 0 }) routedClicks: number;
  @ApiProperty({ minimum: 0 }) passthroughClicks: number;
  @ApiProperty({ minimum: 0 }) fallbackClicks: number;
  @ApiProperty({
    minimum: 0,
    maximum: 1.1,
    description: 'Mean confidence of all clicks (passthrough counts 0); 0 with no clicks',
  })
  averageConfidence: number;
  @ApiProperty({ minimum: 0, description: 'Mean normalizedEpcUsd of all clicks; 0 with no clicks' })
  averageNormalizedEpcUsd: number;
  @ApiProperty({
    minimum: 0,
    description:
      'Beyond [S]: distinct visitors of the counted clicks, one per visitor and UTC day (a keyed hash of address, user agent and day; HyperLogLog, about 0.8% standard error)',
  })
  uniqueVisitors: number;
  @ApiProperty({
    type: ExcludedHitsResponse,
    description: 'Beyond [S]: hits served but not counted in the period, by reason',
  })
  excludedHits: Record<ExcludedHitReason, number>;
  @ApiProperty({
    type: RevenueNotEarnedResponse,
    description:
      'Beyond [S], USD: what the rate-limited and over-quota visitors would have earned (their routes’ normalised EPC, summed)',
  })
  revenueNotEarnedUsd: RevenueNotEarnedResponse;
  @ApiProperty({ type: [MerchantBreakdownResponse] }) byMerchant: MerchantBreakdownResponse[];
  @ApiProperty({
    type: [NetworkBreakdownResponse],
    description:
      'Clicks that went through a network, per network; passthrough clicks use none, so the ' +
      'clicks here add up to totalClicks - passthroughClicks',
  })
  byNetwork: NetworkBreakdownResponse[];
  @ApiProperty({ type: [PresetBreakdownResponse] }) byPreset: PresetBreakdownResponse[];
  @ApiProperty({
    type: SummaryEarningsResponse,
    description:
      'Beyond [S]: the conversions the networks reported for the period (README "Conversions"): approved and pending commission in USD, conversion rate and realised EPC, in total, per network and per region',
  })
  earnings: SummaryEarningsResponse;
}
