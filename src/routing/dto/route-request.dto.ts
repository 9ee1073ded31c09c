import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { RouteFieldsDto } from './route-fields.dto';

/** POST /route body [S]: the routing fields, plus includeCrcTrace. */
export class RouteRequestDto extends RouteFieldsDto {
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  includeCrcTrace?: boolean;
}
