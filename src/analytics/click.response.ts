import { ApiProperty } from '@nestjs/swagger';
import { PaginationMeta } from '../common/pagination';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import { ROUTING_PRESET_IDS } from '../routing/engine/routing-types';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import { DEVICE_CLASSES, DeviceClass } from './click.entity';
import { CLICK_SOURCES, ClickSource } from './click-source';

/** The outcome enumeration [S], in schema order; every RoutingOutcome, nothing else. */
export const CLICK_OUTCOMES = [
  'routed',
  'fallback',
  'passthrough',
] as const satisfies readonly RoutingOutcome[];

/** Click record [S], plus the visitor's country and device class (no personal data). */
export class ClickRecordResponse {
  @ApiProperty({ readOnly: true, example: '01JQ2V6D8K3M5N7P9R1S3T5V7X', description: 'ULID' })
  recordId: string;
  @ApiProperty() linkId: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Inferred from the hostname for passthrough clicks; null when none matches',
  })
  merchantId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null for passthrough' })
  region: string | null;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true, description: 'null for passthrough' })
  networkId: NetworkId | null;
  @ApiProperty({ enum: ROUTING_PRESET_IDS }) preset: RoutingPresetId;
  @ApiProperty({ enum: CLICK_OUTCOMES }) outcome: RoutingOutcome;
  @ApiProperty({ minimum: 0, description: 'Expected EPC of the route taken, USD' })
  normalizedEpcUsd: number;
  @ApiProperty({ minimum: 0, maximum: 1.1, description: 'Routing factor C_r; 0 for passthrough' })
  confidence: number;
  @ApiProperty() deepLinkUsed: boolean;
  @ApiProperty() privateDealApplied: boolean;
  @ApiProperty({ format: 'date-time', readOnly: true, example: '2026-03-14T09:26:53.589Z' })
  clickedAt: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'GB',
    description: 'ISO 3166-1 alpha-2 of the visitor, when known',
  })
  visitorCountry: string | null;
  @ApiProperty({ enum: DEVICE_CLASSES }) deviceClass: DeviceClass;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: null,
    description:
      "The link's redirect rule that picked the destination, by position (docs/redirect-rules.md); null: no rule did",
  })
  ruleIndex: number | null;

  @ApiProperty({
    enum: CLICK_SOURCES,
    example: 'qr',
    description: '`qr` for a scan of the link’s QR code (its URL carries `qr=1`), else `link`',
  })
  source: ClickSource;
}

/** The click list's pagination: pages, and a cursor to walk on from this page. */
export class ClickListPagination extends PaginationMeta {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Pass as `cursor` for the clicks after this page (keyset on clickedAt, recordId, newest ' +
      'first); null when this page is the last.',
  })
  nextCursor: string | null;
}

export class ClickListResponse {
  @ApiProperty({ type: [ClickRecordResponse] }) items: ClickRecordResponse[];
  @ApiProperty({ type: ClickListPagination }) pagination: ClickListPagination;
}
