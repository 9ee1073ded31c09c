import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

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
}
