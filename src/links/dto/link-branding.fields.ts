import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsOptional,
  IsString,
  MaxLength,
  registerDecorator,
  ValidateIf,
  ValidationArguments,
} from 'class-validator';
import { normaliseSlug, slugProblemOf } from '../../domains/slug-rules';

/**
 * `domain` and `slug` of a link (docs/domains.md), validated and documented once for create,
 * bulk items and PATCH (where `isNullable`: null takes the link off its domain).
 */
export function IsLinkDomain(isNullable: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      nullable: isNullable,
      maxLength: 253,
      example: 'links.example.com',
      description:
        'A verified branded domain of yours (POST /v1/domains), with `slug`: the link is then ' +
        'shared as `https://<domain>/<slug>`.' +
        (isNullable ? ' null takes the link off its domain (and drops its slug).' : ''),
    }),
    IsOptional(),
    ValidateIf((_dto, value) => value !== null),
    IsString(),
    MaxLength(253),
  );
}

export function IsLinkSlug(isNullable: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      nullable: isNullable,
      pattern: '^[a-zA-Z0-9-]{1,64}$',
      example: 'black-friday',
      description:
        'The path on `domain`: letters, digits and hyphens, stored lowercased (any case reaches ' +
        'the link), unique among the live links of the domain (409 SLUG_TAKEN), not a reserved ' +
        'path such as r, v1, api, docs, health or metrics.' +
        (isNullable ? ' null takes the link off its domain.' : ''),
    }),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? normaliseSlug(value) : value,
    ),
    IsOptional(),
    ValidateIf((_dto, value) => value !== null),
    IsString(),
    IsUsableSlug(),
  );
}

function IsUsableSlug(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isUsableSlug',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value === 'string' && slugProblemOf(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${typeof args.value === 'string' ? (slugProblemOf(args.value) ?? '') : 'must be a string'}`,
      },
    });
}
