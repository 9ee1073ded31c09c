import { ApiProperty } from '@nestjs/swagger';
import { EarningsResponse } from './earnings.response';
import type { ExcludedHitReason } from './excluded-hits';

/** Hits served but not counted, by reason (every reason listed, 0 included). */
export class ExcludedHitsResponse {
  @ApiProperty({ minimum: 0, description: 'Edge bot score under the threshold' })
  bot_score: number;
  @ApiProperty({ minimum: 0, description: 'A known crawler User-Agent' }) bot_user_agent: number;
  @ApiProperty({ minimum: 0, description: 'A chat or social app fetching a preview card' })
  link_preview: number;
  @ApiProperty({ minimum: 0, description: 'HEAD requests' }) head: number;
  @ApiProperty({ minimum: 0, description: 'Over the per-IP edge window' })
  ip_rate_limited: number;
  @ApiProperty({ minimum: 0, description: "Over the creator's edge window" })
  creator_rate_limited: number;
  @ApiProperty({ minimum: 0, description: 'A Free plan past its included clicks' })
  quota_exhausted: number;
  @ApiProperty({ minimum: 0, description: 'A link past its expiresAt' }) link_expired: number;
  @ApiProperty({ minimum: 0, description: 'A link that had counted its maxClicks' })
  click_cap_reached: number;
  @ApiProperty({
    minimum: 0,
    description: "A capped link's visitor while Redis was unreachable (never counted then)",
  })
  cap_unverified: number;
}

/** What the real visitors among the excluded hits would have earned (their routes' EPC). */
export class RevenueNotEarnedResponse {
  @ApiProperty({ minimum: 0 }) creator_rate_limited: number;
  @ApiProperty({ minimum: 0 }) quota_exhausted: number;
}

export class LinkAnalyticsResponse {
  @ApiProperty() linkId: string;
  @ApiProperty({ format: 'date' }) periodStart: string;
  @ApiProperty({ format: 'date' }) periodEnd: string;
  @ApiProperty({ minimum: 0, description: 'Counted clicks of the period' }) clicks: number;
  @ApiProperty({
    minimum: 0,
    description:
      'Beyond [S]: distinct visitors of the counted clicks, one per visitor and UTC day (a keyed hash of address, user agent and day; HyperLogLog, about 0.8% standard error)',
  })
  uniqueVisitors: number;
  @ApiProperty({ type: ExcludedHitsResponse }) excludedHits: Record<ExcludedHitReason, number>;
  @ApiProperty({
    type: RevenueNotEarnedResponse,
    description:
      'USD: the normalised EPC of the routes the rate-limited and over-quota visitors would have taken, summed',
  })
  revenueNotEarnedUsd: RevenueNotEarnedResponse;
  @ApiProperty({
    type: EarningsResponse,
    description:
      'Beyond [S]: the link\'s conversions and commission in the period, per network and region (README "Conversions")',
  })
  earnings: EarningsResponse;
}
