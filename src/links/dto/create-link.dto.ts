import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { NETWORK_IDS } from '../../networks/network-ids';
import { RouteFieldsDto } from '../../routing/dto/route-fields.dto';
import { IsLinkDomain, IsLinkSlug } from './link-branding.fields';
import { IsExpiredUrl, IsExpiresAt, IsMaxClicks } from './link-limits.dto';
import { IsNetworkOverrideInput, NetworkOverrideInput } from './network-override.dto';
import { IsRedirectRules, RedirectRuleDto } from './redirect-rule.dto';
import { UtmOverrideDto } from './utm-override.dto';

/** CreateLinkRequest [S] (plus the [G] `notes`): the routing fields and the link's own. */
export class CreateLinkDto extends RouteFieldsDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 300,
    description: 'Taken from the URL slug when omitted',
  })
  @IsOptional()
  @IsString()
  @Length(1, 300)
  title?: string;

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

  @IsForwardQueryFlag()
  forwardQuery?: boolean;

  @IsAttributionFlag()
  attribution?: boolean | null;

  @IsLinkDomain(false)
  domain?: string;

  @IsLinkSlug(false)
  slug?: string;

  @IsRedirectRules({ isNullable: false })
  rules?: RedirectRuleDto[];
  @IsExpiresAt(false)
  expiresAt?: string;

  @IsMaxClicks(false)
  maxClicks?: number;

  @IsExpiredUrl(false)
  expiredUrl?: string;
}

/** `attribution` on create and update: validated and documented once. */
export function IsAttributionFlag(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: Boolean,
      nullable: true,
      default: null,
      description:
        "Click ids to the networks: the routed URL carries the network's sub-id parameter with the click's record id, for conversions to come back attributed (README: Conversions). null follows the creator's setting (PATCH /v1/account/settings)",
    }),
    IsOptional(),
    ValidateIf((_dto, value) => value !== null),
    IsBoolean(),
  );
}

/** `forwardQuery` on create and update: validated and documented once. */
export function IsForwardQueryFlag(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      default: false,
      description:
        "Append the visitor's query parameters on /r/:id?… to the destination, except every " +
        "network's tracking parameters and those the destination already sets (docs/api-features.md: Query forwarding)",
    }),
    IsOptional(),
    IsBoolean(),
  );
}
