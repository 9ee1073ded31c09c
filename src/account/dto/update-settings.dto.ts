import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ROUTING_MODES, type RoutingMode } from '../../routing/engine/routing-types';

/** PATCH /v1/account/settings: the fields present change; the others stay. */
export class UpdateSettingsDto {
  @ApiPropertyOptional({
    example: true,
    description:
      "Click ids to the networks for every link that does not say otherwise (a link's own `attribution` wins): the routed URL carries the network's sub-id parameter with the click's record id, so conversions come back attributed (README: Conversions). Off by default: routed URLs stay as they were",
  })
  @IsOptional()
  @IsBoolean()
  attribution?: boolean;

  @ApiPropertyOptional({
    enum: ROUTING_MODES,
    example: 'hinted',
    description:
      "How the creator's links choose a route: `hinted` scores each candidate by the knowledge base's EPC hint; `learned` blends the hint with the creator's own realised EPC per merchant, network and region over a trailing window (docs/routing.md section 10)",
  })
  @IsOptional()
  @IsIn(ROUTING_MODES)
  routingMode?: RoutingMode;
}
