import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';

const QR_CODE_FORMATS = ['svg', 'png'] as const;
export type QrCodeFormat = (typeof QR_CODE_FORMATS)[number];

/**
 * Bounds of a QR code image's side. Below, a code is unreliable to scan. Above, a PNG costs the
 * API process's event loop (which may serve redirects too) tens of milliseconds of CPU more
 * per call, growing with the square of the side; the SVG scales to any print size instead.
 */
const MIN_QR_CODE_SIZE_PX = 128;
const MAX_QR_CODE_SIZE_PX = 1024;
export const DEFAULT_QR_CODE_SIZE_PX = 512;

const sizeMessage = `size must be a decimal integer from ${MIN_QR_CODE_SIZE_PX} to ${MAX_QR_CODE_SIZE_PX}`;

/** Decimal digits become a number; anything else stays as sent, for IsInt to refuse. */
const fromDecimalDigits = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,5}$/.test(value) ? Number(value) : value;

/** GET /links/:id/qr: the image's format and size. */
export class LinkQrCodeQuery {
  @ApiPropertyOptional({ enum: QR_CODE_FORMATS, default: 'svg' })
  @IsOptional()
  @IsIn(QR_CODE_FORMATS, { message: `format must be one of ${QR_CODE_FORMATS.join(', ')}` })
  format?: QrCodeFormat;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_QR_CODE_SIZE_PX,
    maximum: MAX_QR_CODE_SIZE_PX,
    default: DEFAULT_QR_CODE_SIZE_PX,
    description: 'Width and height of the image in pixels, quiet zone included',
  })
  @IsOptional()
  @Transform(fromDecimalDigits)
  @IsInt({ message: sizeMessage })
  @Min(MIN_QR_CODE_SIZE_PX, { message: sizeMessage })
  @Max(MAX_QR_CODE_SIZE_PX, { message: sizeMessage })
  size?: number;
}
