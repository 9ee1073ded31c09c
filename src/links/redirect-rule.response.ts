import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NETWORK_IDS } from '../networks/network-ids';
import { RuleQueryDto } from './dto/redirect-rule.dto';
import { RULE_DEVICES, type RedirectRuleView, type RuleDevice } from './redirect-rule';

/** One redirect rule of a link: its conditions as asked, and its destination's stored route. */
export class RedirectRuleResponse implements RedirectRuleView {
  @ApiProperty({ format: 'uri', example: 'https://www.amazon.de/dp/B09G9FPHY6' })
  destinationUrl: string;
  @ApiPropertyOptional({ type: [String], example: ['DE', 'AT'] }) countries?: string[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: [...RULE_DEVICES] } })
  devices?: RuleDevice[];
  @ApiPropertyOptional({ type: [String], example: ['de'], description: 'In lower case' })
  languages?: string[];
  @ApiPropertyOptional({ format: 'date-time' }) startsAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) endsAt?: string;
  @ApiPropertyOptional({ example: '18:00', description: 'HH:MM UTC' }) fromTime?: string;
  @ApiPropertyOptional({ example: '23:00', description: 'HH:MM UTC' }) toTime?: string;
  @ApiPropertyOptional({ type: RuleQueryDto }) query?: { param: string; value: string };
  @ApiProperty({
    format: 'uri',
    readOnly: true,
    description: "'' when the destination is passthrough",
  })
  canonicalUrl: string;
  @ApiProperty({
    format: 'uri',
    readOnly: true,
    description: 'The route stored at write time (visitors with no context); clicks route live',
  })
  routedUrl: string;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) merchantId: string | null;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true, readOnly: true }) networkId: string | null;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) region: string | null;
}
