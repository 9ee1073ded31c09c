import type { KeyEnvironment } from '../common/access/auth-context';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Counts from the clicks table that other modules need (quota rebuilds, account usage). */
@Injectable()
export class ClickCountsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Clicks of a creator stored since the start of a billing period: what a quota counter is
   * rebuilt from when Redis has none (first click of the period, or data lost), never zero.
   */
  async countSince(
    creatorId: string,
    environment: KeyEnvironment,
    periodStart: string,
  ): Promise<number> {
    const rows: { clicks: string }[] = await this.dataSource.query(
      `SELECT count(*) AS clicks FROM clicks
        WHERE creator_id = $1 AND environment = $2 AND clicked_at >= $3`,
      [creatorId, environment, `${periodStart}T00:00:00Z`],
    );
    return Number(rows[0]?.clicks ?? 0);
  }
}
