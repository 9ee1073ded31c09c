import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../common/access/auth-context';
import { PaginationMeta } from '../common/pagination';
import { ApiErrorBody } from '../common/errors/api-error.response';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import { ROUTING_PRESET_IDS } from '../routing/engine/routing-types';
import type { RoutingPresetId, RoutingTrace } from '../routing/engine/routing-types';
import { RoutingTraceResponse } from '../routing/routing-trace.response';
import { UtmOverrideDto } from './dto/utm-override.dto';
import type { NetworkOverride } from './link.entity';
import { RedirectRuleResponse } from './redirect-rule.response';

/** PassthroughFlag [S]. */
export class PassthroughFlagResponse {
  @ApiProperty() enabled: boolean;
  @ApiPropertyOptional({ maxLength: 500 }) reason?: string;
  @ApiPropertyOptional({ format: 'date-time', readOnly: true }) enabledAt?: string;
}

class NetworkOverrideResponse {
  @ApiProperty({ enum: NETWORK_IDS }) networkId: NetworkId;
  @ApiPropertyOptional({ format: 'date-time' }) expiresAt?: string;
  @ApiPropertyOptional({ maxLength: 500 }) reason?: string;
}

/** LinkSummary [S]: the list item. */
export class LinkSummaryResponse {
  @ApiProperty({ readOnly: true, example: '01JD7Z3W9S8K4Q2M6N0P1R5T7V' }) linkId: string;
  @ApiProperty({ minLength: 1, maxLength: 300 }) title: string;
  @ApiProperty({ format: 'uri', readOnly: true }) originalUrl: string;
  @ApiProperty({ format: 'uri', readOnly: true }) routedUrl: string;
  @ApiProperty({
    format: 'uri',
    readOnly: true,
    description: '{redirect_base_url}/r/<linkId>, or https://<domain>/<slug> on a branded domain',
  })
  linkpilotUrl: string;
  @ApiPropertyOptional({
    example: 'links.example.com',
    description: 'The branded domain the link is served on (docs/domains.md); absent when none',
  })
  domain?: string;
  @ApiPropertyOptional({
    example: 'black-friday',
    description: 'Its lowercase vanity slug on `domain`; absent when none',
  })
  slug?: string;
  @ApiProperty({
    type: String,
    nullable: true,
    readOnly: true,
    description: 'null for a domain outside the knowledge base',
  })
  merchantId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    readOnly: true,
    description: 'null for passthrough',
  })
  region: string | null;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true, description: 'null for passthrough' })
  networkId: NetworkId | null;
  @ApiProperty({ enum: ROUTING_PRESET_IDS }) preset: RoutingPresetId;
  @ApiPropertyOptional() category?: string;
  @ApiProperty({ type: PassthroughFlagResponse }) passthrough: PassthroughFlagResponse;
  @ApiProperty({ type: String, nullable: true, description: "null is 'All Links'" })
  groupId: string | null;
  @ApiProperty({ format: 'date-time', readOnly: true }) createdAt: string;
}

/** Link [S], plus the [G] fields where [S] is silent (docs/design.md section 2). */
export class LinkResponse extends LinkSummaryResponse {
  @ApiProperty({ format: 'uri', readOnly: true, description: "'' when passthrough is active" })
  canonicalUrl: string;
  @ApiProperty({
    enum: KEY_ENVIRONMENTS,
    readOnly: true,
    description:
      'The environment of the key that created it: a test key (lp_test_sk_) sees and makes ' +
      'only test links, whose clicks are test clicks; a live key only live links',
  })
  environment: KeyEnvironment;
  @ApiPropertyOptional({ type: NetworkOverrideResponse }) networkOverride?: NetworkOverride;
  @ApiPropertyOptional({ type: UtmOverrideDto }) utmOverride?: UtmOverrideDto;
  @ApiProperty({ format: 'date-time', readOnly: true }) updatedAt: string;
  @ApiProperty({ minimum: 0, maximum: 100, description: '[G] green >= 80, amber 60-79, red < 60' })
  confidence: number;
  @ApiProperty({ description: '[G]' }) deepLinkUsed: boolean;
  @ApiProperty({ description: '[G] estimate in USD, not a guarantee' }) normalizedEpcUsd: number;
  @ApiProperty({ enum: ['ok', 'warning', 'critical', 'unknown'], description: '[G]' })
  healthStatus: string;
  @ApiProperty({ enum: ['validated', 'unchecked', 'invalid', 'ttl_expired'], description: '[G]' })
  deepLinkStatus: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: '[G]' })
  lastHealthCheckAt: string | null;
  @ApiProperty({ type: String, nullable: true, description: '[G] private notes' })
  notes: string | null;
  @ApiProperty({
    description:
      "The visitor's query parameters are appended to the destination (docs/api-features.md: Query forwarding)",
  })
  forwardQuery: boolean;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      "Click ids to the networks for this link; null follows the creator's setting (README: Conversions)",
  })
  attribution: boolean | null;
  // Expiry and click caps (docs/edge.md "Expiry and click caps"): present when set.
  @ApiPropertyOptional({ format: 'date-time', example: '2099-12-31T23:59:59.000Z' })
  expiresAt?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 500 })
  maxClicks?: number;
  @ApiPropertyOptional({
    format: 'uri',
    description: 'Where visitors go past expiresAt or maxClicks; without it they get 410',
  })
  expiredUrl?: string;
  @ApiProperty({ enum: ['routed', 'fallback', 'passthrough'], description: 'Outcome at creation' })
  outcome: string;
  @ApiProperty({ type: RoutingTraceResponse, description: '[G] the routing trace at creation' })
  crcTrace: RoutingTrace;
  @ApiPropertyOptional({
    type: [RedirectRuleResponse],
    description:
      'Redirect rules in order, the first match wins (docs/redirect-rules.md); absent for none',
  })
  rules?: RedirectRuleResponse[];
}

export class LinkEnvelope {
  @ApiProperty({ type: LinkResponse }) link: LinkResponse;
}

export class LinkListResponse {
  @ApiProperty({ type: [LinkSummaryResponse] }) items: LinkSummaryResponse[];
  @ApiProperty({ type: PaginationMeta }) pagination: PaginationMeta;
}

export class DeleteLinkResponse {
  @ApiProperty() linkId: string;
  @ApiProperty() deleted: boolean;
}

export class BulkFailureResponse {
  @ApiProperty({ minimum: 0, description: 'Zero-based position in the request' }) index: number;
  @ApiProperty({ type: String, nullable: true }) originalUrl: string | null;
  @ApiProperty({ type: ApiErrorBody }) error: ApiErrorBody;
}

export class BulkCreateLinksResponse {
  @ApiProperty({ type: [LinkResponse] }) created: LinkResponse[];
  @ApiProperty({ type: [BulkFailureResponse] }) failed: BulkFailureResponse[];
  @ApiProperty({ minimum: 0 }) totalRequested: number;
  @ApiProperty({ minimum: 0 }) totalCreated: number;
  @ApiProperty({ minimum: 0 }) totalFailed: number;
}
