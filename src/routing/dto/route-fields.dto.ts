import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Validate } from 'class-validator';
import {
  DEVICE_HINTS,
  IsEnumWithHints,
  PRESET_HINTS,
} from '../../common/validators/enum-with-hints';
import { IsHttpsUrl } from '../../common/validators/is-https-url';
import { IsSupportedCountry } from '../../common/validators/is-supported-country';
import { PRODUCT_CATEGORIES, ProductCategory } from '../../merchants/kb/merchant-profile';
import { DEVICE_TYPES } from '../device-types';
import { ROUTING_PRESET_IDS } from '../engine/routing-types';
import type { DeviceType, RoutingPresetId } from '../engine/routing-types';

/**
 * The fields a routing decision is asked with, shared by POST /route and POST /links, so both
 * validate them by the same rules.
 */
export class RouteFieldsDto {
  @ApiProperty({ format: 'uri', maxLength: 4096, example: 'https://www.amazon.com/dp/B09G9FPHY6' })
  @IsHttpsUrl()
  originalUrl: string;

  @ApiPropertyOptional({ enum: ROUTING_PRESET_IDS, default: 'default' })
  @IsOptional()
  @IsEnumWithHints(ROUTING_PRESET_IDS, PRESET_HINTS)
  preset?: RoutingPresetId;

  @ApiPropertyOptional({
    example: 'IN',
    description: 'IsoAlpha2; default: the market of the URL storefront',
  })
  @IsOptional()
  @Validate(IsSupportedCountry)
  visitorCountry?: string;

  @ApiPropertyOptional({ enum: DEVICE_TYPES, default: 'desktop' })
  @IsOptional()
  @IsEnumWithHints(DEVICE_TYPES, DEVICE_HINTS)
  deviceType?: DeviceType;

  @ApiPropertyOptional({ enum: PRODUCT_CATEGORIES })
  @IsOptional()
  @IsIn(PRODUCT_CATEGORIES, { message: `category must be one of ${PRODUCT_CATEGORIES.join(', ')}` })
  category?: ProductCategory;
}
