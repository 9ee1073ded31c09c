import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { TIMESERIES_INTERVALS, TimeseriesInterval } from '../time-buckets';
import { IsAnalyticsDate } from './is-analytics-date';

export const TIMESERIES_GROUPS = [
  'none',
  'country',
  'device',
  'network',
  'outcome',
  'source',
] as const;
export type TimeseriesGroup = (typeof TIMESERIES_GROUPS)[number];

export const TIMESERIES_METRICS = ['clicks', 'conversions', 'commissionUsd'] as const;
export type TimeseriesMetric = (typeof TIMESERIES_METRICS)[number];

/** GET /analytics/timeseries: click counts per UTC hour or day, optionally per group. */
export class TimeseriesQuery {
  @ApiPropertyOptional({ enum: TIMESERIES_INTERVALS, default: 'day' })
  @IsOptional()
  @IsIn(TIMESERIES_INTERVALS, {
    message: `interval must be one of ${TIMESERIES_INTERVALS.join(', ')}`,
  })
  interval?: TimeseriesInterval;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-03-01',
    description: 'First UTC day (inclusive); default: 30 days (day) or 2 days (hour) before to',
  })
  @IsOptional()
  @IsAnalyticsDate()
  from?: string;

  @ApiPropertyOptional({
    format: 'date',
    example: '2026-03-31',
    description: 'Last UTC day (inclusive); default: today',
  })
  @IsOptional()
  @IsAnalyticsDate()
  to?: string;

  @ApiPropertyOptional({ maxLength: 64, description: "One of the caller's links" })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  linkId?: string;

  @ApiPropertyOptional({
    enum: TIMESERIES_METRICS,
    default: 'clicks',
    description:
      'What each bucket counts: counted clicks, standing conversions, or approved plus pending commission in USD (both by the day or hour of the order’s first status; `groupBy=outcome` and `groupBy=source` are for clicks only)',
  })
  @IsOptional()
  @IsIn(TIMESERIES_METRICS, { message: `metric must be one of ${TIMESERIES_METRICS.join(', ')}` })
  metric?: TimeseriesMetric;

  @ApiPropertyOptional({
    enum: TIMESERIES_GROUPS,
    default: 'none',
    description: 'One series per group; `source`: `qr` (QR code scans) and `link` (the rest)',
  })
  @IsOptional()
  @IsIn(TIMESERIES_GROUPS, { message: `groupBy must be one of ${TIMESERIES_GROUPS.join(', ')}` })
  groupBy?: TimeseriesGroup;
}
