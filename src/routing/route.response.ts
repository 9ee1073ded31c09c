import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import type { RoutingDecision, RoutingOutcome, RoutingPresetId, RoutingTrace } from './engine';
import { RoutingTraceResponse } from './routing-trace.response';

/** POST /route answer: the [S] fields plus the [G] ones where [S] is silent. */
export class RouteResponse {
  @ApiProperty({ format: 'uri', description: 'Where the visitor would go (no redirect URL)' })
  redirectUrl: string;
  @ApiProperty({ type: String, nullable: true }) merchantId: string | null;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true }) networkId: NetworkId | null;
  @ApiProperty({ type: String, nullable: true }) region: string | null;
  @ApiProperty({ minimum: 0 }) normalizedEpcUsd: number;
  @ApiProperty({ minimum: 0, maximum: 1.1, description: 'C_r, in [0.65, 1.10] when routed' })
  confidence: number;
  @ApiProperty({ enum: ['routed', 'fallback', 'passthrough'] }) outcome: RoutingOutcome;
  @ApiProperty({ description: 'Machine-readable reason for the outcome' }) reason: string;
  @ApiProperty({ description: "[G] '' for passthrough" }) canonicalUrl: string;
  @ApiProperty({ description: '[G]' }) deepLinkUsed: boolean;
  @ApiProperty({ description: '[G]' }) preset: RoutingPresetId;
  @ApiPropertyOptional({ type: RoutingTraceResponse, description: 'When includeCrcTrace is true' })
  crcTrace?: RoutingTrace;
}

export function toRouteResponse(decision: RoutingDecision, includeTrace: boolean): RouteResponse {
  return {
    redirectUrl: decision.routedUrl,
    merchantId: decision.merchantId,
    networkId: decision.networkId,
    region: decision.region,
    normalizedEpcUsd: decision.normalizedEpcUsd,
    confidence: decision.confidenceFactor,
    outcome: decision.outcome,
    reason: decision.reason,
    canonicalUrl: decision.canonicalUrl,
    deepLinkUsed: decision.deepLinkUsed,
    preset: decision.trace.preset,
    ...(includeTrace ? { crcTrace: decision.trace } : {}),
  };
}
