import { PageQuery } from '../../common/pagination';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { IsEnumWithHints, PRESET_HINTS } from '../../common/validators/enum-with-hints';
import { IsIsoDateTime } from '../../common/validators/is-iso-date-time';
import { NETWORK_IDS, NetworkId } from '../../networks/network-ids';
import { ROUTING_PRESET_IDS, RoutingPresetId } from '../../routing/engine/routing-types';

/** Query strings carry "true"/"false"; anything else stays a string and fails IsBoolean. */
const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

export class ListLinksQuery extends PageQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 64)
  merchantId?: string;

  @ApiPropertyOptional({ enum: NETWORK_IDS })
  @IsOptional()
  @IsIn(NETWORK_IDS, { message: `networkId must be one of ${NETWORK_IDS.join(', ')}` })
  networkId?: NetworkId;

  @ApiPropertyOptional({ enum: ROUTING_PRESET_IDS })
  @IsOptional()
  @IsEnumWithHints(ROUTING_PRESET_IDS, PRESET_HINTS)
  preset?: RoutingPresetId;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  groupId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Exclusive' })
  @IsOptional()
  @IsIsoDateTime()
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Exclusive' })
  @IsOptional()
  @IsIsoDateTime()
  createdBefore?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'Case-insensitive substring of title or original URL',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ description: '[G] true: passthrough links only; false: routed only' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'passthrough must be true or false' })
  passthrough?: boolean;
}
