import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { CreateLinkDto } from './create-link.dto';

export const MAX_BULK_LINKS = 100;

/**
 * POST /links/bulk: the items are validated one by one by the service, so one bad item fails
 * alone instead of failing the request.
 */
export class BulkCreateLinksDto {
  @ApiProperty({ type: [CreateLinkDto], minItems: 1, maxItems: MAX_BULK_LINKS })
  @IsArray({ message: 'links must be an array of 1 to 100 create-link requests' })
  links: unknown[];
}
