import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { asTransaction, managerOf, type Transaction } from '../database/transaction';
import type { RecordScope } from '../common/access/auth-context';
import { ConversionEntity } from './conversion.entity';

/** The identity of an order within a scope: network and order id. */
export const orderKeyOf = (row: { networkId: string; orderId: string }): string =>
  `${row.networkId} ${row.orderId}`;

/**
 * The conversions table. Writes run in one transaction per batch that first takes a
 * transaction advisory lock per order (in one global order, so concurrent batches wait on
 * each other and never deadlock): an order's earlier rows, read next, are then all there
 * is, and the effects decided from them are right even when two ways in (a postback and an
 * import) report the same order at once.
 */
@Injectable()
export class ConversionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `work` in a transaction holding the locks of `orderKeys`, with the scope's rows of
   * those orders.
   */
  withOrders<T>(
    scope: RecordScope,
    orderKeys: readonly { networkId: string; orderId: string }[],
    work: (existing: ConversionEntity[], transaction: Transaction) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const lockNames = [...new Set(orderKeys.map(orderKeyOf))].map(
        (key) => `conversion ${scope.creatorId} ${scope.environment} ${key}`,
      );
      // The aggregate takes the locks row by row, in the sorted subquery's order.
      await manager.query(
        `SELECT count(pg_advisory_xact_lock(lock_key))
           FROM (SELECT DISTINCT hashtextextended(name, 0) AS lock_key
                   FROM unnest($1::text[]) AS name ORDER BY 1) AS keys`,
        [lockNames],
      );
      const wanted = new Set(orderKeys.map(orderKeyOf));
      const candidates = await manager.getRepository(ConversionEntity).find({
        where: {
          creatorId: scope.creatorId,
          environment: scope.environment,
          networkId: In([...new Set(orderKeys.map((key) => key.networkId))]),
          orderId: In([...new Set(orderKeys.map((key) => key.orderId))]),
        },
        order: { recordedAt: 'ASC', id: 'ASC' },
      });
      const existing = candidates.filter((row) => wanted.has(orderKeyOf(row)));
      return work(existing, asTransaction(manager));
    });
  }

  async insertAll(rows: readonly ConversionEntity[], transaction: Transaction): Promise<void> {
    const manager = managerOf(transaction);
    // 26 columns a row: 2,000 rows stay under PostgreSQL's 65,535 parameters.
    for (let start = 0; start < rows.length; start += 2_000) {
      await manager.insert(ConversionEntity, rows.slice(start, start + 2_000));
    }
  }

  /** Removes every conversion of a test scope (the sandbox reset); answers how many. */
  async purgeTestScope(scope: RecordScope): Promise<number> {
    if (scope.environment !== 'test') throw new Error('Only test conversions can be purged');
    const result = await this.dataSource
      .getRepository(ConversionEntity)
      .delete({ creatorId: scope.creatorId, environment: 'test' });
    return result.affected ?? 0;
  }
}
