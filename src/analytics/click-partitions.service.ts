import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { Clock } from '../common/clock';
import { ClickPartitionsRepository } from './click-partitions.repository';

/** Months of partitions kept ready ahead of today, so the DEFAULT partition stays empty. */
const MONTHS_AHEAD = 3;

const monthStart = (year: number, month: number): string =>
  new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);

/** The monthly partitions of `clicks`: created at boot and daily, a few months ahead. */
@Injectable()
export class ClickPartitionsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ClickPartitionsService.name);

  constructor(
    private readonly partitions: ClickPartitionsRepository,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureAhead();
  }

  @Cron('15 0 * * *', { timeZone: 'UTC' })
  async ensureAhead(): Promise<void> {
    const now = new Date(this.clock.nowMs());
    for (let offset = 0; offset <= MONTHS_AHEAD; offset++) {
      const year = now.getUTCFullYear();
      const month = now.getUTCMonth() + offset;
      const from = monthStart(year, month);
      const to = monthStart(year, month + 1);
      const name = `clicks_${from.slice(0, 7).replace('-', '_')}`;
      await this.partitions
        .createMonthPartition(name, from, to)
        .catch((error: unknown) =>
          this.logger.warn(`Could not create click partition ${name}: ${String(error)}`),
        );
    }
  }
}
