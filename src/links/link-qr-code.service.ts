import { Injectable, StreamableFile } from '@nestjs/common';
import { withQrMarker } from '../analytics/click-source';
import type { RecordScope } from '../common/access/auth-context';
import { DEFAULT_QR_CODE_SIZE_PX, LinkQrCodeQuery } from './dto/link-qr-code.query';
import { LinksService } from './links.service';
import { renderQrCode } from './qr-code-image';

/**
 * A link's QR code (docs/qr-codes.md): its `linkpilotUrl`, whichever host serves it, with the
 * `qr=1` marker by which the edge records a scan's click as source `qr`.
 */
@Injectable()
export class LinkQrCodeService {
  constructor(private readonly links: LinksService) {}

  /** 404 LINK_NOT_FOUND as GET /links/:id: another creator's, environment's or a deleted link. */
  async render(
    scope: RecordScope,
    linkId: string,
    query: LinkQrCodeQuery,
  ): Promise<StreamableFile> {
    const { link } = await this.links.get(scope, linkId);
    const format = query.format ?? 'svg';
    const image = await renderQrCode(
      withQrMarker(link.linkpilotUrl),
      format,
      query.size ?? DEFAULT_QR_CODE_SIZE_PX,
    );
    return new StreamableFile(image.body, {
      type: image.contentType,
      disposition: `inline; filename="${link.linkId}-qr.${format}"`,
      length: image.body.length,
    });
  }
}
