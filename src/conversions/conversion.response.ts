import { ApiProperty } from '@nestjs/swagger';
import { ApiErrorBody } from '../common/errors/api-error.response';
import { SUPPORTED_CURRENCIES } from '../fx/math/fx-snapshot';
import { NETWORK_IDS } from '../networks/network-ids';
import {
  CONVERSION_SOURCES,
  CONVERSION_STATUSES,
  ConversionEntity,
  ConversionSource,
  ConversionStatus,
} from './conversion.entity';

/** One recorded status of an order, with what it was attributed to. */
export class ConversionResponse {
  @ApiProperty({ example: '01JDA3M2B7X9Q4W8E6R5T1Y0UZ' }) id: string;
  @ApiProperty({ enum: NETWORK_IDS }) networkId: string;
  @ApiProperty({ example: '114-3941689-8772232' }) orderId: string;
  @ApiProperty({ enum: CONVERSION_STATUSES }) status: ConversionStatus;
  @ApiProperty({ enum: CONVERSION_SOURCES, description: 'How it came in' })
  source: ConversionSource;
  @ApiProperty({ type: String, nullable: true, description: 'As the network sent it' })
  clickId: string | null;
  @ApiProperty({ description: 'Whether the click id named a stored click of the caller' })
  attributed: boolean;
  @ApiProperty({ type: String, nullable: true, description: "The click's link" })
  linkId: string | null;
  @ApiProperty({ type: String, nullable: true }) merchantId: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The click's route region" })
  region: string | null;
  @ApiProperty({ type: String, nullable: true }) visitorCountry: string | null;
  @ApiProperty({ type: String, nullable: true }) deviceClass: string | null;
  @ApiProperty({ example: 129.99 }) saleAmount: number;
  @ApiProperty({ example: 5.2 }) commission: number;
  @ApiProperty({ enum: SUPPORTED_CURRENCIES }) currency: string;
  @ApiProperty({ description: "saleAmount at occurredAt's rates" }) saleAmountUsd: number;
  @ApiProperty({ description: "commission at occurredAt's rates" }) commissionUsd: number;
  @ApiProperty({ format: 'date-time' }) occurredAt: string;
  @ApiProperty({ format: 'date-time' }) recordedAt: string;
}

export class RecordedConversionResponse {
  @ApiProperty({ minimum: 0, description: 'Zero-based position in the request' }) index: number;
  @ApiProperty({
    description:
      'True when this network, order id and status were recorded before: nothing changed, and `conversion` is the earlier record',
  })
  replayed: boolean;
  @ApiProperty({ type: ConversionResponse }) conversion: ConversionResponse;
}

export class FailedConversionResponse {
  @ApiProperty({ minimum: 0 }) index: number;
  @ApiProperty({ type: String, nullable: true }) orderId: string | null;
  @ApiProperty({ type: ApiErrorBody }) error: ApiErrorBody;
}

export class RecordConversionsResponse {
  @ApiProperty({ type: [RecordedConversionResponse] }) recorded: RecordedConversionResponse[];
  @ApiProperty({ type: [FailedConversionResponse] }) failed: FailedConversionResponse[];
  @ApiProperty() totalRequested: number;
  @ApiProperty({ description: 'Newly recorded (not replayed)' }) totalRecorded: number;
  @ApiProperty() totalReplayed: number;
  @ApiProperty() totalFailed: number;
}

export class PostbackResponse {
  @ApiProperty() replayed: boolean;
  @ApiProperty({ type: ConversionResponse }) conversion: ConversionResponse;
}

export class PostbackTokenResponse {
  @ApiProperty({
    example: 'lp_pb_5Jx0m2Qd8k1Vt7Yc3Rb9Lw4Hn6Fg',
    description: 'Shown once: only its hash is stored. A new one replaces the old at once',
  })
  token: string;
  @ApiProperty({ enum: ['live', 'test'] }) environment: string;
  @ApiProperty({
    example:
      'https://api.linkpilot.example/postbacks/lp_pb_5Jx0m2Qd8k1Vt7Yc3Rb9Lw4Hn6Fg/{networkId}',
    description: 'The postback URL to give the networks, `{networkId}` to be replaced',
  })
  postbackUrlTemplate: string;
}

export function toConversionResponse(row: ConversionEntity): ConversionResponse {
  return {
    id: row.id,
    networkId: row.networkId,
    orderId: row.orderId,
    status: row.status,
    source: row.source,
    clickId: row.clickId,
    attributed: row.linkId !== null,
    linkId: row.linkId,
    merchantId: row.merchantId,
    region: row.region,
    visitorCountry: row.visitorCountry,
    deviceClass: row.deviceClass,
    saleAmount: Number(row.saleAmount),
    commission: Number(row.commission),
    currency: row.currency,
    saleAmountUsd: Number(row.saleAmountUsd),
    commissionUsd: Number(row.commissionUsd),
    occurredAt: row.occurredAt.toISOString(),
    recordedAt: row.recordedAt.toISOString(),
  };
}
