import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsEnumWithHints, PRESET_HINTS } from '../../common/validators/enum-with-hints';
import { PRODUCT_CATEGORIES, ProductCategory } from '../../merchants/kb/merchant-profile';
import { NETWORK_IDS } from '../../networks/network-ids';
import { ROUTING_PRESET_IDS, RoutingPresetId } from '../../routing/engine/routing-types';
import { IsNetworkOverrideInput, NetworkOverrideInput } from './network-override.dto';
import { IsAttributionFlag, IsForwardQueryFlag } from './create-link.dto';
import { IsLinkDomain, IsLinkSlug } from './link-branding.fields';
import { IsRedirectRules, RedirectRuleDto } from './redirect-rule.dto';
import { IsExpiredUrl, IsExpiresAt, IsMaxClicks } from './link-limits.dto';
import { UtmOverrideDto } from './utm-override.dto';

/** Present, and not null: for fields that cannot be removed. */
const isPresent = (field: keyof UpdateLinkDto) => (dto: UpdateLinkDto) => dto[field] !== undefined;

/**
 * PATCH /links/:id [S]: only the fields present change; `null` removes the removable ones.
 * Routing is not re-run.
 */
export class UpdateLinkDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 300 })
  @ValidateIf(isPresent('title'))
  @IsString()
  @Length(1, 300)
  title?: string;

  @ApiPropertyOptional({ enum: ROUTING_PRESET_IDS })
  @ValidateIf(isPresent('preset'))
  @IsEnumWithHints(ROUTING_PRESET_IDS, PRESET_HINTS)
  preset?: RoutingPresetId;

  @ApiPropertyOptional()
  @ValidateIf(isPresent('passthrough'))
  @IsBoolean()
  passthrough?: boolean;

  @ApiPropertyOptional({ maxLength: 500, description: 'Required when turning passthrough on' })
  @ValidateIf(
    (dto: UpdateLinkDto) => dto.passthrough === true || dto.passthroughReason !== undefined,
  )
  @IsString({ message: 'passthroughReason is required when passthrough is true' })
  @Length(1, 500)
  passthroughReason?: string;

  @ApiPropertyOptional({
    // OpenAPI 3.0 has no null type: null is the nullable string branch's value.
    oneOf: [{ type: 'string', enum: [...NETWORK_IDS, null], nullable: true }, { type: 'object' }],
    description: 'A network id (or {networkId, expiresAt?, reason?}); null removes the pin',
  })
  @IsOptional()
  @IsNetworkOverrideInput()
  networkOverride?: NetworkOverrideInput | null;

  @ApiPropertyOptional({ enum: PRODUCT_CATEGORIES, nullable: true })
  @IsOptional()
  @IsIn(PRODUCT_CATEGORIES, { message: `category must be one of ${PRODUCT_CATEGORIES.join(', ')}` })
  category?: ProductCategory | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 128,
    description: "null moves to 'All Links'",
  })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  groupId?: string | null;

  @ApiPropertyOptional({ type: UtmOverrideDto, nullable: true, description: 'null removes all' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => UtmOverrideDto)
  utmOverride?: UtmOverrideDto | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  notes?: string | null;

  @IsForwardQueryFlag()
  forwardQuery?: boolean;

  @IsAttributionFlag()
  attribution?: boolean | null;

  @IsLinkDomain(true)
  domain?: string | null;

  @IsLinkSlug(true)
  slug?: string | null;

  @IsRedirectRules({ isNullable: true })
  rules?: RedirectRuleDto[] | null;
  @IsExpiresAt(true)
  expiresAt?: string | null;

  @IsMaxClicks(true)
  maxClicks?: number | null;

  @IsExpiredUrl(true)
  expiredUrl?: string | null;
}
