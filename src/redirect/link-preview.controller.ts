import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { LinkPreviewQuery } from './dto/link-preview.query';
import { LinkPreviewEnvelope, LinkPreviewMarketsResponse } from './link-preview.response';
import { LinkPreviewService } from './link-preview.service';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';
import { ApiLinkIdParameter } from '../links/links.examples';

@ApiTags('links')
@ApiBearerAuth()
@Controller('links/:id/preview')
export class LinkPreviewController {
  constructor(private readonly previews: LinkPreviewService) {}

  @Get()
  @ApiOperation({
    summary: 'Where a visitor of this country and device is sent now, with the routing trace',
    description:
      'Answered by the redirect’s own code path; counts no click and touches no edge limit. ' +
      'A visitor over an edge limit or past a Free quota would get the original URL instead.',
  })
  @ApiLinkIdParameter()
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  @ApiEnvelopedOk(LinkPreviewEnvelope)
  preview(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Query() query: LinkPreviewQuery,
  ): Promise<LinkPreviewEnvelope> {
    return this.previews.preview(
      caller,
      id,
      query.country ?? null,
      query.device ?? 'desktop',
      query,
    );
  }

  @Get('markets')
  @ApiOperation({
    summary: "The preview for every market the merchant serves plus the link's own, per device",
    description:
      'GET /links/{id}/preview for each country the merchant has a storefront for, and the ' +
      "link's own, on each device: where each visitor would be sent now. Counts no click.",
  })
  @ApiLinkIdParameter()
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  @ApiEnvelopedOk(LinkPreviewMarketsResponse)
  markets(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
  ): Promise<LinkPreviewMarketsResponse> {
    return this.previews.markets(caller, id);
  }
}
