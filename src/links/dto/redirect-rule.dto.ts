import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Validate,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsHttpsUrl, HasNoControlCharacters } from '../../common/validators/is-https-url';
import { IsSupportedCountry } from '../../common/validators/is-supported-country';
import { MAX_REDIRECT_RULES, RULE_DEVICES, type RuleDevice } from '../redirect-rule';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const UTC_TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A rule's query condition: the visitor's `/r/:id?param=value`. */
export class RuleQueryDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'src' })
  @IsString()
  @Length(1, 100)
  @HasNoControlCharacters()
  param: string;

  @ApiProperty({ maxLength: 500, example: 'newsletter', description: 'Compared exactly' })
  @IsString()
  @MaxLength(500)
  @HasNoControlCharacters()
  value: string;
}

/**
 * One redirect rule (docs/redirect-rules.md): a destination and at least one condition; all
 * the conditions given must hold. Cross-field checks (at least one condition, a whole daily
 * window, a window that is not empty) are toStoredRule's.
 */
export class RedirectRuleDto {
  @ApiProperty({
    format: 'uri',
    maxLength: 4096,
    example: 'https://www.amazon.de/dp/B09G9FPHY6',
    description: "Canonicalised and routed like the link's originalUrl, with the link's settings",
  })
  @IsHttpsUrl()
  destinationUrl: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['DE', 'AT'],
    description: "The visitor's country (IsoAlpha2, from the trusted edge header) is one of these",
  })
  @IsListOf(250)
  @Validate(IsSupportedCountry, { each: true })
  countries?: string[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...RULE_DEVICES] },
    example: ['ios'],
    description: "The visitor's device, read from the User-Agent: iOS, Android, or a desktop",
  })
  @IsListOf(RULE_DEVICES.length)
  @IsIn(RULE_DEVICES, {
    each: true,
    message: `each device must be one of ${RULE_DEVICES.join(', ')}`,
  })
  devices?: RuleDevice[];

  @ApiPropertyOptional({
    type: [String],
    example: ['de'],
    description:
      'The primary language subtag of the first Accept-Language entry (case-insensitive) is one of these',
  })
  @IsListOf(50)
  @Matches(/^[A-Za-z]{2,3}$/, {
    each: true,
    message: 'each language must be a 2 or 3 letter language code',
  })
  languages?: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-01T00:00:00Z',
    description: 'From this instant on (inclusive)',
  })
  @IsOptional()
  @Matches(ISO_INSTANT, { message: 'startsAt must be an ISO 8601 date-time with a time zone' })
  startsAt?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-27T00:00:00Z',
    description: 'Before this instant (exclusive)',
  })
  @IsOptional()
  @Matches(ISO_INSTANT, { message: 'endsAt must be an ISO 8601 date-time with a time zone' })
  endsAt?: string;

  @ApiPropertyOptional({
    pattern: UTC_TIME_OF_DAY.source,
    example: '18:00',
    description: 'Daily window start, HH:MM UTC (inclusive); needs toTime',
  })
  @IsOptional()
  @Matches(UTC_TIME_OF_DAY, { message: 'fromTime must be HH:MM (UTC, 00:00 to 23:59)' })
  fromTime?: string;

  @ApiPropertyOptional({
    pattern: UTC_TIME_OF_DAY.source,
    example: '23:00',
    description:
      'Daily window end, HH:MM UTC (exclusive); earlier than fromTime means the window spans midnight',
  })
  @IsOptional()
  @Matches(UTC_TIME_OF_DAY, { message: 'toTime must be HH:MM (UTC, 00:00 to 23:59)' })
  toTime?: string;

  @ApiPropertyOptional({ type: RuleQueryDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RuleQueryDto)
  query?: RuleQueryDto;
}

/** `rules` on create and update: validated and documented once. */
export function IsRedirectRules(options: { isNullable: boolean }): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: [RedirectRuleDto],
      maxItems: MAX_REDIRECT_RULES,
      nullable: options.isNullable,
      description:
        'Ordered redirect rules: the first whose conditions all hold picks the destination (docs/redirect-rules.md)' +
        (options.isNullable ? '. Replaces the whole list; null or [] removes every rule' : ''),
    }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_REDIRECT_RULES, {
      message: `rules must hold at most ${MAX_REDIRECT_RULES} rules`,
    }),
    ValidateNested({ each: true }),
    Type(() => RedirectRuleDto),
  );
}

/** An optional non-empty list of at most `max` items. */
function IsListOf(max: number): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_dto, value) => value !== undefined),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(max),
  );
}
