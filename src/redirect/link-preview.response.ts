import { ApiProperty } from '@nestjs/swagger';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingTrace } from '../routing/engine/routing-types';
import { RoutingTraceResponse } from '../routing/routing-trace.response';
import { PREVIEW_DEVICES, PreviewDevice } from './dto/link-preview.query';

/** Where one visitor's counted click goes now, as `/r/:id` would send them. */
export class LinkPreviewResponse {
  @ApiProperty({ example: 'DE', nullable: true, type: String }) country: string | null;
  @ApiProperty({ enum: PREVIEW_DEVICES }) device: PreviewDevice;
  @ApiProperty({ format: 'uri', description: 'The Location of the 302 a counted click gets' })
  location: string;
  @ApiProperty({ enum: ['routed', 'fallback', 'passthrough'] }) outcome: RoutingOutcome;
  @ApiProperty({ type: String, nullable: true }) region: string | null;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true }) networkId: NetworkId | null;
  @ApiProperty({ minimum: 0 }) normalizedEpcUsd: number;
  @ApiProperty({ minimum: 0, maximum: 1.1, description: 'The engine confidence factor C_r' })
  confidence: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 19,
    description:
      "The redirect rule that picks this visitor's destination (docs/redirect-rules.md); null: the link's own",
  })
  ruleIndex: number | null;
  @ApiProperty({
    type: RoutingTraceResponse,
    nullable: true,
    description: 'null where no decision runs: passthrough, or no country given',
  })
  crcTrace: RoutingTrace | null;
}

export class LinkPreviewEnvelope {
  @ApiProperty({ type: LinkPreviewResponse }) preview: LinkPreviewResponse;
}

export class LinkPreviewMarketsResponse {
  @ApiProperty({ readOnly: true }) linkId: string;
  @ApiProperty({
    type: [LinkPreviewResponse],
    description:
      "Every market the merchant's storefronts are keyed by, plus the link's own, times the three devices; without the traces",
  })
  items: Omit<LinkPreviewResponse, 'crcTrace'>[];
}
