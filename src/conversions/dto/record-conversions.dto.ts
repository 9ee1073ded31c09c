import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { ItemsValidatedAlone } from '../../common/validators/refuse-malformed-text.pipe';
import { ConversionInputDto } from './conversion-input.dto';

export const MAX_CONVERSIONS_PER_REQUEST = 1000;

/**
 * POST /v1/conversions: the items are validated one by one by the service, so one bad item
 * fails alone (207), as in the bulk link create.
 */
@ItemsValidatedAlone('conversions')
export class RecordConversionsDto {
  @ApiProperty({
    type: [ConversionInputDto],
    minItems: 1,
    maxItems: MAX_CONVERSIONS_PER_REQUEST,
  })
  @IsArray({ message: 'conversions must be an array of 1 to 1000 conversions' })
  conversions: unknown[];
}
