import { Injectable } from '@nestjs/common';
import { ClickAttribution, ClickAttributionRepository } from './click-attribution.repository';

export type { ClickAttribution };

/**
 * Stored clicks by record id for the conversions' attribution, whoever's they are: the caller
 * compares the scope, as a click of another creator or environment is refused, not unknown.
 */
@Injectable()
export class ClickAttributionService {
  constructor(private readonly clicks: ClickAttributionRepository) {}

  findByRecordIds(recordIds: readonly string[]): Promise<Map<string, ClickAttribution>> {
    return this.clicks.findByRecordIds(recordIds);
  }
}
