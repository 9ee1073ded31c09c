import { ApiProperty } from '@nestjs/swagger';
import { CurrencyCode, FxSource, SUPPORTED_CURRENCIES } from './math/fx-snapshot';

const EXAMPLE_RATES: Partial<Record<CurrencyCode, number>> = {
  USD: 1,
  EUR: 0.8647,
  GBP: 0.7618,
  INR: 88.64,
  JPY: 156.83,
};

/** FX rates: the [S] fields, then the [G] ones (docs/design.md section 2). */
export class FxRatesResponse {
  @ApiProperty({ enum: ['USD'], description: 'Always USD' })
  base: 'USD';

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number', minimum: 0, exclusiveMinimum: true },
    description: `Units of each currency per 1 USD, for all 23 supported currencies: ${SUPPORTED_CURRENCIES.join(', ')}`,
    example: EXAMPLE_RATES,
  })
  rates: Record<CurrencyCode, number>;

  @ApiProperty({ format: 'date-time', description: 'When the upstream says the rates were valid' })
  timestamp: string;

  @ApiProperty({
    description: 'Older than staleBeyondHours; routing then applies confidencePenalty',
  })
  isStale: boolean;

  @ApiProperty({
    minimum: 0,
    example: 4.2,
    description: 'Hours since timestamp, one decimal ([G])',
  })
  ageHours: number;

  @ApiProperty({ example: 6, description: 'Staleness limit in hours (FX_STALE_AFTER_HOURS) ([G])' })
  staleBeyondHours: number;

  @ApiProperty({ enum: [0, -0.02], description: '-0.02 when stale, else 0 ([G])' })
  confidencePenalty: number;

  @ApiProperty({
    enum: ['primary', 'fallback', 'snapshot'],
    description:
      'Where the rates came from: the primary or fallback upstream, or the bundled snapshot ([G])',
  })
  source: FxSource;
}
