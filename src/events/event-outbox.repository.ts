import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { asTransaction, managerOf, Transaction } from '../database/transaction';
import type { OutboxEvent } from './outbox-event';

/** A row as read: an OutboxEvent whose timestamp the driver may hand back as text. */
type EventRow = Omit<OutboxEvent, 'createdAt'> & { createdAt: Date | string };

const EVENT_COLUMNS = `id, creator_id AS "creatorId", environment, type, data,
  target_endpoint_id AS "targetEndpointId", created_at AS "createdAt"`;

/** The `webhook_events` outbox, in raw SQL; the events module owns the table. */
@Injectable()
export class EventOutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(event: OutboxEvent, transaction?: Transaction): Promise<void> {
    const manager = transaction === undefined ? this.dataSource.manager : managerOf(transaction);
    await manager.query(
      `INSERT INTO webhook_events (id, creator_id, environment, type, data, target_endpoint_id, created_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
      [
        event.id,
        event.creatorId,
        event.environment,
        event.type,
        JSON.stringify(event.data),
        event.targetEndpointId,
        event.createdAt,
      ],
    );
  }

  /**
   * Takes up to `limit` undispatched events, oldest first, hands them to `fanOut` inside the
   * same transaction and marks them dispatched. Rows another node holds are skipped (SKIP
   * LOCKED), so an event is fanned out once however many nodes run the worker.
   */
  dispatchPending(
    limit: number,
    fanOut: (events: OutboxEvent[], transaction: Transaction) => Promise<void>,
  ): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager.query<EventRow[]>(
        `SELECT ${EVENT_COLUMNS} FROM webhook_events
          WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await fanOut(rows.map(toEvent), asTransaction(manager));
      await manager.query(`UPDATE webhook_events SET dispatched_at = now() WHERE id = ANY($1)`, [
        rows.map((row) => row.id),
      ]);
      return rows.length;
    });
  }

  async findByIds(ids: string[]): Promise<OutboxEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.dataSource.query<EventRow[]>(
      `SELECT ${EVENT_COLUMNS} FROM webhook_events WHERE id = ANY($1)`,
      [ids],
    );
    return rows.map(toEvent);
  }
}

function toEvent(row: EventRow): OutboxEvent {
  return { ...row, createdAt: new Date(row.createdAt) };
}
