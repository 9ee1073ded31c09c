import { PageQuery } from '../../common/pagination';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { IsEnumWithHints, PRESET_HINTS } from '../../common/validators/enum-with-hints';
import { NETWORK_IDS, NetworkId } from '../../networks/network-ids';
import {
  ROUTING_PRESET_IDS,
  RoutingOutcome,
  RoutingPresetId,
} from '../../routing/engine/routing-types';
import { CLICK_OUTCOMES } from '../click.response';
import { IsAnalyticsDate } from './is-analytics-date';

/** GET /analytics/clicks: paginated like GET /links; `from`/`to` are inclusive UTC days. */
export class ListClicksQuery extends PageQuery {
  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  linkId?: string;

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  merchantId?: string;

  @ApiPropertyOptional({ enum: NETWORK_IDS })
  @IsOptional()
  @IsIn(NETWORK_IDS, { message: `networkId must be one of ${NETWORK_IDS.join(', ')}` })
  networkId?: NetworkId;

  @ApiPropertyOptional({ enum: CLICK_OUTCOMES })
  @IsOptional()
  @IsIn(CLICK_OUTCOMES, { message: `outcome must be one of ${CLICK_OUTCOMES.join(', ')}` })
  outcome?: RoutingOutcome;

  @ApiPropertyOptional({ enum: ROUTING_PRESET_IDS })
  @IsOptional()
  @IsEnumWithHints(ROUTING_PRESET_IDS, PRESET_HINTS)
  preset?: RoutingPresetId;

  @ApiPropertyOptional({
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    example: '2026-03-01',
    description: 'AnalyticsDate: clicks on or after 00:00 UTC of this day',
  })
  @IsOptional()
  @IsAnalyticsDate()
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    example: '2026-03-31',
    description: 'AnalyticsDate: clicks up to the end (23:59:59.999 UTC) of this day',
  })
  @IsOptional()
  @IsAnalyticsDate()
  to?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'Opaque: a `pagination.nextCursor` of an earlier answer. The page of clicks after that ' +
      "answer's last one, at the same cost at any depth (no 10,000-record bound); send the " +
      'same filters and no `page`.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  cursor?: string;
}
