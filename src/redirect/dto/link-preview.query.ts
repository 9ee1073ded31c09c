import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength, Validate } from 'class-validator';
import { IsSupportedCountry } from '../../common/validators/is-supported-country';

/** The devices a preview can stand for: what the edge reads from a User-Agent. */
export const PREVIEW_DEVICES = ['desktop', 'ios', 'android'] as const;
export type PreviewDevice = (typeof PREVIEW_DEVICES)[number];

/** GET /links/:id/preview: the visitor to preview for. */
export class LinkPreviewQuery {
  @ApiPropertyOptional({
    example: 'DE',
    description: "IsoAlpha2; without it, the link's stored route (a visitor of unknown country)",
  })
  @IsOptional()
  @Validate(IsSupportedCountry)
  country?: string;

  @ApiPropertyOptional({ enum: PREVIEW_DEVICES, default: 'desktop' })
  @IsOptional()
  @IsIn(PREVIEW_DEVICES, { message: `device must be one of ${PREVIEW_DEVICES.join(', ')}` })
  device?: PreviewDevice;

  @ApiPropertyOptional({
    example: 'de',
    description:
      "The visitor's primary language (what a redirect rule reads from Accept-Language); without it, none",
  })
  @IsOptional()
  @Matches(/^[A-Za-z]{2,3}$/, { message: 'language must be a 2 or 3 letter language code' })
  language?: string;

  @ApiPropertyOptional({
    example: 'src=newsletter',
    description:
      "The query string the visitor would open /r/:id with, URL-encoded, without `?` (redirect rules' query conditions)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  visitorQuery?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-24T19:00:00Z',
    description: "The instant redirect rules' time windows are judged at; default: now",
  })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: 'at must be an ISO 8601 date-time with a time zone',
  })
  at?: string;
}
