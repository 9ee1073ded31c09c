import * as QRCode from 'qrcode';
import type { QrCodeFormat } from './dto/link-qr-code.query';

/** A rendered QR code: its bytes and their media type. */
export interface QrCodeImage {
  contentType: 'image/svg+xml' | 'image/png';
  body: Buffer;
}

/**
 * Error correction M (15% of the modules may be lost: a smudged print, a glare) and the
 * standard quiet zone of 4 modules, which scanners need to find the code.
 */
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/** The QR code of `text`, `sizePx` wide and high (a URL of a few dozen characters fits any size). */
export async function renderQrCode(
  text: string,
  format: QrCodeFormat,
  sizePx: number,
): Promise<QrCodeImage> {
  switch (format) {
    case 'svg':
      return {
        contentType: 'image/svg+xml',
        body: Buffer.from(
          await QRCode.toString(text, { ...QR_OPTIONS, type: 'svg', width: sizePx }),
        ),
      };
    case 'png':
      return {
        contentType: 'image/png',
        body: await QRCode.toBuffer(text, { ...QR_OPTIONS, type: 'png', width: sizePx }),
      };
  }
}
