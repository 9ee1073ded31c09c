import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';
import { LinkQrCodeQuery } from './dto/link-qr-code.query';
import { LinkQrCodeService } from './link-qr-code.service';
import { ApiLinkIdParameter } from './links.examples';

@ApiTags('links')
@ApiBearerAuth()
@Controller('links/:id/qr')
export class LinkQrCodeController {
  constructor(private readonly qrCodes: LinkQrCodeService) {}

  @Get()
  @ApiOperation({
    summary: "The link's QR code, as SVG or PNG",
    description:
      'Encodes the link’s `linkpilotUrl` with `qr=1` appended: clicks of visitors who scan it ' +
      'are recorded with `source: qr` (click records, `GET /analytics/timeseries?groupBy=source`), ' +
      'and the marker is never forwarded to the destination. The image itself, not a JSON envelope.',
  })
  @ApiLinkIdParameter()
  @ApiProduces('image/svg+xml', 'image/png')
  @ApiResponse({
    status: 200,
    description: 'The QR code image (`format=svg`: image/svg+xml, `format=png`: image/png)',
    content: {
      'image/svg+xml': { schema: { type: 'string' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
    },
  })
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  qrCode(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Query() query: LinkQrCodeQuery,
  ): Promise<StreamableFile> {
    return this.qrCodes.render(caller, id, query);
  }
}
