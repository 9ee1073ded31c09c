import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches, Validate } from 'class-validator';
import {
  NETWORK_IDS,
  NetworkId,
  PRODUCT_CATEGORIES,
  ProductCategory,
} from '../kb/merchant-profile';
import { IsSupportedCountry } from '../../common/validators/is-supported-country';

export class ListMerchantsQuery {
  @ApiPropertyOptional({ enum: NETWORK_IDS, description: 'Merchants routed through this network' })
  @IsOptional()
  @IsIn(NETWORK_IDS, { message: `networkId must be one of ${NETWORK_IDS.join(', ')}` })
  networkId?: NetworkId;

  @ApiPropertyOptional({ enum: PRODUCT_CATEGORIES, description: 'Merchants selling this category' })
  @IsOptional()
  @IsIn(PRODUCT_CATEGORIES, {
    message: `category must be one of ${PRODUCT_CATEGORIES.join(', ')}`,
  })
  category?: ProductCategory;

  @ApiPropertyOptional({
    example: 'IN',
    description: '[G] Merchants with a storefront keyed by this region code (or GLOBAL)',
  })
  @IsOptional()
  @Matches(/^([A-Z]{2}|GLOBAL)$/, {
    message: 'region must be an upper-case ISO 3166-1 alpha-2 code or GLOBAL',
  })
  region?: string;

  @ApiPropertyOptional({
    example: 'NG',
    description: '[G] Merchants with a storefront shipping to this country',
  })
  @IsOptional()
  @Validate(IsSupportedCountry)
  availableInCountry?: string;
}
