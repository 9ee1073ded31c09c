import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsIsoDateTime } from '../../common/validators/is-iso-date-time';
import { SUPPORTED_CURRENCIES } from '../../fx/math/fx-snapshot';
import { NETWORK_IDS, NetworkId } from '../../networks/network-ids';
import { CONVERSION_STATUSES, ConversionStatus } from '../conversion.entity';

/** Amounts up to ten billion in the order's currency, to four decimals (numeric(16, 4)). */
const MAX_AMOUNT = 1e10;

/**
 * One conversion as a network reports it: an item of `POST /v1/conversions`, a postback's
 * fields once mapped (postback-fields.ts) or a row of an imported report.
 */
export class ConversionInputDto {
  @ApiProperty({ enum: NETWORK_IDS, example: 'amazon_associates' })
  @IsIn(NETWORK_IDS, { message: `networkId must be one of ${NETWORK_IDS.join(', ')}` })
  networkId: NetworkId;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 64,
    example: '01JD5ZQ7X6M3W1H8K2C4N9P0RT',
    description:
      "The sub-id the network sent back: the click's record id (`/r/:id` appends it with attribution on). Unknown or absent: the conversion is kept unattributed",
  })
  @IsOptional()
  @ValidateIf((_dto, value) => value !== null)
  @IsString()
  @Length(1, 64)
  clickId?: string | null;

  @ApiProperty({ minLength: 1, maxLength: 128, example: '114-3941689-8772232' })
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'orderId must be printable ASCII without spaces' })
  orderId: string;

  @ApiProperty({ enum: CONVERSION_STATUSES, example: 'pending' })
  @IsIn(CONVERSION_STATUSES, {
    message: `status must be one of ${CONVERSION_STATUSES.join(', ')}`,
  })
  status: ConversionStatus;

  @ApiProperty({ minimum: 0, maximum: MAX_AMOUNT, example: 129.99, description: 'In `currency`' })
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 4 })
  @Min(0)
  @Max(MAX_AMOUNT)
  saleAmount: number;

  @ApiProperty({
    minimum: -MAX_AMOUNT,
    maximum: MAX_AMOUNT,
    example: 5.2,
    description:
      'In `currency`. A reversal takes out what the order counted, whatever its own commission says',
  })
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 4 })
  @Min(-MAX_AMOUNT)
  @Max(MAX_AMOUNT)
  commission: number;

  @ApiProperty({ enum: SUPPORTED_CURRENCIES, example: 'USD' })
  @IsIn(SUPPORTED_CURRENCIES, {
    message: `currency must be one of ${SUPPORTED_CURRENCIES.join(', ')}`,
  })
  currency: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T14:03:00Z',
    description: "When the order happened; the amounts are converted to USD at that day's rates",
  })
  @IsIsoDateTime()
  occurredAt: string;
}
