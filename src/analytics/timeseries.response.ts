import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  TIMESERIES_GROUPS,
  TIMESERIES_METRICS,
  TimeseriesGroup,
  TimeseriesMetric,
} from './dto/timeseries.query';
import { TIMESERIES_INTERVALS, TimeseriesInterval } from './time-buckets';

export class TimeseriesBucketResponse {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket, UTC' }) start: string;
  @ApiPropertyOptional({ minimum: 0, description: 'With `metric=clicks` (the default)' })
  clicks?: number;
  @ApiPropertyOptional({ description: 'With `metric=conversions`: net of reversals' })
  conversions?: number;
  @ApiPropertyOptional({ description: 'With `metric=commissionUsd`: approved plus pending, USD' })
  commissionUsd?: number;
  @ApiPropertyOptional({
    minimum: 0,
    description:
      'Distinct visitors of the day’s counted clicks (one per visitor and UTC day; HyperLogLog, about 0.81% standard error), of the link with `linkId`, else of the key’s environment. Only in `interval=day` buckets of the ungrouped series (`groupBy=none`): there is no sketch per hour or per group, and the field is then absent.',
  })
  uniqueVisitors?: number;
}

export class TimeseriesSeriesResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The group (country, device class, network id, outcome or source); null without grouping, and for clicks with no value (no country, passthrough: no network)',
  })
  key: string | null;
  @ApiProperty({ type: [TimeseriesBucketResponse], description: 'Zero-filled, oldest first' })
  buckets: TimeseriesBucketResponse[];
}

export class TimeseriesResponse {
  @ApiProperty({ enum: TIMESERIES_INTERVALS }) interval: TimeseriesInterval;
  @ApiProperty({ format: 'date' }) from: string;
  @ApiProperty({ format: 'date' }) to: string;
  @ApiProperty({ enum: TIMESERIES_GROUPS }) groupBy: TimeseriesGroup;
  @ApiProperty({ enum: TIMESERIES_METRICS }) metric: TimeseriesMetric;
  @ApiProperty({ type: [TimeseriesSeriesResponse] }) series: TimeseriesSeriesResponse[];
}
