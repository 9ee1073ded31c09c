import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  Validate,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsSupportedCountry } from '../../common/validators/is-supported-country';
import { IsHttpsUrl } from '../../common/validators/is-https-url';
import {
  DEVICE_HINTS,
  IsEnumWithHints,
  PRESET_HINTS,
} from '../../common/validators/enum-with-hints';
import { PRODUCT_CATEGORIES, ProductCategory } from '../../merchants/kb/merchant-profile';
import { NETWORK_IDS } from '../../networks/network-ids';
import { ROUTING_PRESET_IDS, RoutingPresetId } from '../../routing/engine/routing-types';
import { DEVICE_TYPES, DeviceType } from '../../routing/device-types';
import { IsNetworkOverrideInput, NetworkOverrideInput } from './network-override.input';
import { UtmOverrideDto } from './utm-override.dto';

/** CreateLinkRequest [S] (plus the [G] `notes`). */
export class CreateLinkDto {
  @ApiProperty({ format: 'uri', maxLength: 4096, example: 'https://www.amazon.com/dp/B09G9FPHY6' })
  @IsHttpsUrl()
  originalUrl: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 300,
    description: 'Taken from the URL slug when omitted',
  })
  @IsOptional()
  @IsString()
  @Length(1, 300)
  title?: string;

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

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  passthrough?: boolean;

  @ApiPropertyOptional({ maxLength: 500, description: 'Required when passthrough is true' })
  @ValidateIf(
    (dto: CreateLinkDto) => dto.passthrough === true || dto.passthroughReason !== undefined,
  )
  @IsString({ message: 'passthroughReason is required when passthrough is true' })
  @Length(1, 500)
  passthroughReason?: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: [...NETWORK_IDS] },
      {
        type: 'object',
        properties: {
          networkId: { type: 'string', enum: [...NETWORK_IDS] },
          expiresAt: { type: 'string', format: 'date-time' },
          reason: { type: 'string', maxLength: 500 },
        },
        required: ['networkId'],
      },
    ],
    description: 'Pins a network, bypassing EPC selection',
  })
  @IsOptional()
  @IsNetworkOverrideInput()
  networkOverride?: NetworkOverrideInput;

  @ApiPropertyOptional({ type: UtmOverrideDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => UtmOverrideDto)
  utmOverride?: UtmOverrideDto;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 128,
    description: "null is 'All Links'",
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  groupId?: string | null;

  @ApiPropertyOptional({ maxLength: 1000, description: '[G] private notes' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  notes?: string;
}
