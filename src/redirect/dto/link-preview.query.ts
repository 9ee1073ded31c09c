import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Validate } from 'class-validator';
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
}
