import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnalyticsService } from '../analytics/analytics.service';
import { AnalyticsSummaryQuery } from '../analytics/dto/analytics-summary.query';
import { LinkAnalyticsResponse } from '../analytics/link-analytics.response';
import { ApiAnalyticsBusy } from '../analytics/api-analytics-busy.decorator';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { LinksService } from './links.service';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes } from '../openapi/operation-docs.decorators';
import { ApiLinkIdParameter } from './links.examples';

/**
 * GET /analytics/links/:id: one link's period. Here rather than in analytics because the
 * link must be the caller's (links owns that check); analytics answers the figures.
 */
@ApiTags('analytics')
@ApiBearerAuth()
@ApiAnalyticsBusy()
@Controller('analytics/links')
export class LinkAnalyticsController {
  constructor(
    private readonly links: LinksService,
    private readonly analytics: AnalyticsService,
  ) {}

  @Get(':id')
  @ApiOperation({
    summary: "One link's counted clicks and excluded hits by reason over a period of UTC days",
    description:
      "The summary's period rules (default: this UTC month up to today). Excluded hits are " +
      'written in batches: a hit shows within a few seconds.',
  })
  @ApiLinkIdParameter()
  @ApiErrorCodes(ErrorCode.LINK_NOT_FOUND)
  @ApiEnvelopedOk(LinkAnalyticsResponse)
  async linkReport(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Query() query: AnalyticsSummaryQuery,
  ): Promise<LinkAnalyticsResponse> {
    const { link } = await this.links.get(caller, id);
    return this.analytics.linkReport(caller, link.linkId, query);
  }
}
