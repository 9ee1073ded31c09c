import { ApiProperty } from '@nestjs/swagger';
import { IsArray } from 'class-validator';
import { ItemsValidatedAlone } from '../../common/validators/refuse-malformed-text.pipe';
import { CreateLinkDto } from './create-link.dto';

export const MAX_BULK_LINKS = 100;

/**
 * POST /links/bulk: the items are validated one by one by the service, the text rule
 * included, so one bad item fails alone instead of failing the request.
 */
@ItemsValidatedAlone('links')
export class BulkCreateLinksDto {
  @ApiProperty({ type: [CreateLinkDto], minItems: 1, maxItems: MAX_BULK_LINKS })
  @IsArray({ message: 'links must be an array of 1 to 100 create-link requests' })
  links: unknown[];
}
