import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { AnalyticsSummaryResponse } from './analytics-summary.response';
import { AnalyticsService } from './analytics.service';
import { ApiAnalyticsBusy } from './api-analytics-busy.decorator';
import { ClickListResponse } from './click.response';
import { AnalyticsSummaryQuery } from './dto/analytics-summary.query';
import { ListClicksQuery } from './dto/list-clicks.query';
import { TimeseriesQuery } from './dto/timeseries.query';
import { TimeseriesResponse } from './timeseries.response';

@ApiTags('analytics')
@ApiBearerAuth()
@ApiAnalyticsBusy()
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('clicks')
  @ApiOperation({
    summary: "The caller's click records, newest first",
    description:
      '`from` and `to` are inclusive UTC days (YYYY-MM-DD); `from` after `to` is a 400. ' +
      'Records cover the raw retention: the current UTC month and the ' +
      '`CLICK_RETENTION_MONTHS` (default 13) whole months before it; older clicks are ' +
      'dropped, so the list and its `total` start on the 1st of the oldest of those months, ' +
      'whatever `from` says, and the summary and time series count them from the rollups. ' +
      'Pages reach at most the 10,000th record (page × limit; a 400 beyond): narrow by date, ' +
      "or walk on by `cursor` (each answer's `pagination.nextCursor`, null on the last page) " +
      'at the same cost at any depth. `pagination.total` is exact either way.',
  })
  @ApiEnvelopedOk(ClickListResponse)
  listClicks(
    @Caller() caller: AuthContext,
    @Query() query: ListClicksQuery,
  ): Promise<ClickListResponse> {
    return this.analytics.listClicks(caller, query);
  }

  @Get('timeseries')
  @ApiOperation({
    summary: "The caller's clicks per UTC hour or day, zero-filled, optionally per group",
    description:
      '`from` and `to` are inclusive UTC days (default: the last 30 days by day, 2 by hour); ' +
      'at most 1,000 buckets and 10,000 points (series × buckets); beyond either, a 400 ' +
      'naming the limit and how to narrow the request. By day without grouping, each bucket ' +
      'also carries `uniqueVisitors` (of the link with `linkId`, else of the environment); ' +
      'hourly and grouped buckets have no such field.',
  })
  @ApiEnvelopedOk(TimeseriesResponse)
  timeseries(
    @Caller() caller: AuthContext,
    @Query() query: TimeseriesQuery,
  ): Promise<TimeseriesResponse> {
    return this.analytics.timeseries(caller, query);
  }

  @Get('summary')
  @ApiOperation({
    summary: "Totals and breakdowns of the caller's clicks over a period of UTC days",
    description:
      'Default period: the current UTC calendar month up to today. Both ends inclusive; ' +
      'periodStart after periodEnd, or more than 366 days, is a 400.',
  })
  @ApiEnvelopedOk(AnalyticsSummaryResponse)
  summarise(
    @Caller() caller: AuthContext,
    @Query() query: AnalyticsSummaryQuery,
  ): Promise<AnalyticsSummaryResponse> {
    return this.analytics.summarise(caller, query);
  }
}
