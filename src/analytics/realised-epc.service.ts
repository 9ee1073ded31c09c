import { Injectable } from '@nestjs/common';
import type { KeyEnvironment } from '../common/access/auth-context';
import {
  ConversionRollupReadsRepository,
  RealisedEpcRow,
} from './conversion-rollup-reads.repository';

/**
 * What a creator's links really earned per merchant, network and region over a trailing
 * window: counted clicks from the click rollups, commission from the conversion rollups.
 * On the serving pool (not an analytics slot), for callers off the request path that cache
 * the answer.
 */
@Injectable()
export class RealisedEpcService {
  constructor(private readonly reads: ConversionRollupReadsRepository) {}

  realisedEpcByRoute(
    creatorId: string,
    environment: KeyEnvironment,
    merchantIds: readonly string[],
    sinceDay: string,
  ): Promise<RealisedEpcRow[]> {
    return this.reads.realisedEpcByRoute(creatorId, environment, merchantIds, sinceDay);
  }
}
