import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { IsHttpsUrl } from '../../common/validators/is-https-url';
import { IsIsoDateTime } from '../../common/validators/is-iso-date-time';
import { MAX_CLICKS_LIMIT } from '../link-limits';

// Expiry and click caps on create, bulk and PATCH (docs/edge.md "Expiry and click caps"),
// validated and documented once. On PATCH, null clears the field (IsOptional lets it through).

/** An instant: a date-time with its offset, so no server's time zone decides it. */
const WITH_OFFSET = /T.*(?:Z|[+-]\d{2}:?\d{2})$/;

export function IsExpiresAt(isPatch: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      format: 'date-time',
      ...(isPatch ? { nullable: true } : {}),
      example: '2099-12-31T23:59:59Z',
      description: isPatch
        ? 'The instant the link expires; a past instant expires it at once, null removes the expiry'
        : 'The instant the link expires (in the future): visitors then go to expiredUrl, or get 410',
    }),
    IsOptional(),
    IsIsoDateTime(),
    Matches(WITH_OFFSET, {
      message: 'expiresAt must be an instant with its offset, such as 2099-12-31T23:59:59Z',
    }),
  );
}

export function IsMaxClicks(isPatch: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: MAX_CLICKS_LIMIT,
      ...(isPatch ? { nullable: true } : {}),
      example: 500,
      description:
        'Counted clicks after which the link is capped: visitors then go to expiredUrl, or get 410. ' +
        'Exact across nodes. On PATCH, a value at or below the clicks already counted caps the link at once, a higher one reopens it' +
        (isPatch ? '; null removes the cap' : ''),
    }),
    IsOptional(),
    IsInt({ message: 'maxClicks must be a whole number' }),
    Min(1, { message: 'maxClicks must be at least 1' }),
    Max(MAX_CLICKS_LIMIT, { message: `maxClicks must be at most ${MAX_CLICKS_LIMIT}` }),
  );
}

export function IsExpiredUrl(isPatch: boolean): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      format: 'uri',
      maxLength: 4096,
      ...(isPatch ? { nullable: true } : {}),
      example: 'https://www.amazon.com/dp/B0CHX1W1XY',
      description:
        'Where visitors go once the link has expired or reached maxClicks, canonicalised and ' +
        'routed like the link (affiliate tags apply); without it they get 410' +
        (isPatch ? '. null removes it' : ''),
    }),
    IsOptional(),
    IsHttpsUrl(),
  );
}
