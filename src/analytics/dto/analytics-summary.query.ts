import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsAnalyticsDate } from './is-analytics-date';

/** GET /analytics/summary: an inclusive period of whole UTC days, at most 366 of them. */
export class AnalyticsSummaryQuery {
  @ApiPropertyOptional({
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    example: '2026-03-01',
    description: "AnalyticsDate, inclusive. Default: the first day of periodEnd's month",
  })
  @IsOptional()
  @IsAnalyticsDate()
  periodStart?: string;

  @ApiPropertyOptional({
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    example: '2026-03-31',
    description: 'AnalyticsDate, inclusive. Default: today (UTC)',
  })
  @IsOptional()
  @IsAnalyticsDate()
  periodEnd?: string;
}
