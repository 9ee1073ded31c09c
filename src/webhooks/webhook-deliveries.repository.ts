import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '../database/transaction';
import type { RecordScope } from '../common/access/auth-context';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A row of `webhook_deliveries`: one event for one endpoint, and its attempts so far. */
export interface WebhookDeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  createdAt: Date;
}

export interface NewDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  createdAt: Date;
}

/** What an attempt ended with. */
export interface AttemptResult {
  state: DeliveryState;
  statusCode: number | null;
  error: string | null;
  attemptedAt: Date;
  /** The next attempt (pending), else left as it was. */
  nextAttemptAt: Date | null;
}

const COLUMNS = `d.id, d.endpoint_id AS "endpointId", d.event_id AS "eventId",
  d.event_type AS "eventType", d.state, d.attempts, d.last_status_code AS "lastStatusCode",
  d.last_error AS "lastError", d.last_attempt_at AS "lastAttemptAt",
  d.next_attempt_at AS "nextAttemptAt", d.created_at AS "createdAt"`;

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Part of the outbox's fan-out transaction; a delivery already made is kept. */
  async insertMany(transaction: Transaction, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await managerOf(transaction).query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, next_attempt_at, created_at)
       SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::varchar[],
                            $5::timestamptz[], $5::timestamptz[])
       ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.endpointId),
        deliveries.map((d) => d.eventId),
        deliveries.map((d) => d.eventType),
        deliveries.map((d) => d.createdAt),
      ],
    );
  }

  /**
   * Claims due attempts, counting each as made: the rows are locked with FOR UPDATE SKIP
   * LOCKED and marked in flight until `inFlightUntil` in one statement, so two nodes never
   * send the same attempt. Only the oldest pending delivery of an endpoint is due, so each
   * endpoint gets its events in order, one at a time. A node that dies mid-send leaves the
   * attempt to be made again once `inFlightUntil` passes.
   */
  claimDue(now: Date, inFlightUntil: Date, limit: number): Promise<WebhookDeliveryRecord[]> {
    return this.dataSource
      .query<[WebhookDeliveryRecord[], number]>(
        `UPDATE webhook_deliveries d
            SET attempts = d.attempts + 1, in_flight_until = $2
          WHERE d.id IN (
            SELECT c.id FROM webhook_deliveries c
             WHERE c.state = 'pending' AND c.next_attempt_at <= $1
               AND (c.in_flight_until IS NULL OR c.in_flight_until < $1)
               AND NOT EXISTS (
                 SELECT 1 FROM webhook_deliveries o
                  WHERE o.endpoint_id = c.endpoint_id AND o.state = 'pending' AND o.id < c.id)
             ORDER BY c.next_attempt_at, c.id
             LIMIT $3
             FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
        [now, inFlightUntil, limit],
      )
      .then(([rows]) => rows);
  }

  async recordAttempt(id: string, result: AttemptResult): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries
          SET state = $2, last_status_code = $3, last_error = $4, last_attempt_at = $5,
              next_attempt_at = COALESCE($6, next_attempt_at), in_flight_until = NULL
        WHERE id = $1`,
      [
        id,
        result.state,
        result.statusCode,
        result.error?.slice(0, 500) ?? null,
        result.attemptedAt,
        result.nextAttemptAt,
      ],
    );
  }

  /** An endpoint's deliveries, newest first (the endpoint's scope is checked by the caller). */
  async pageForEndpoint(
    endpointId: string,
    page: number,
    limit: number,
  ): Promise<{ items: WebhookDeliveryRecord[]; total: number }> {
    const [items, [count]] = await Promise.all([
      this.dataSource.query<WebhookDeliveryRecord[]>(
        `SELECT ${COLUMNS} FROM webhook_deliveries d WHERE d.endpoint_id = $1
          ORDER BY d.id DESC LIMIT $2 OFFSET $3`,
        [endpointId, limit, (page - 1) * limit],
      ),
      this.dataSource.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM webhook_deliveries WHERE endpoint_id = $1`,
        [endpointId],
      ),
    ]);
    return { items, total: Number(count.count) };
  }

  /**
   * Makes a delivery of the scope's live endpoint due now (pending, attempts kept). An
   * attempt in flight is left alone. Null when no such delivery is in the scope.
   */
  async retryInScope(
    scope: RecordScope,
    id: string,
    now: Date,
  ): Promise<WebhookDeliveryRecord | null> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries d SET state = 'pending', next_attempt_at = $4
         FROM webhook_endpoints e
        WHERE d.id = $1 AND e.id = d.endpoint_id AND e.creator_id = $2 AND e.environment = $3
          AND e.deleted_at IS NULL
          AND (d.in_flight_until IS NULL OR d.in_flight_until < $4)`,
      [id, scope.creatorId, scope.environment, now],
    );
    const [row] = await this.dataSource.query<WebhookDeliveryRecord[]>(
      `SELECT ${COLUMNS} FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.id = $1 AND e.creator_id = $2 AND e.environment = $3 AND e.deleted_at IS NULL`,
      [id, scope.creatorId, scope.environment],
    );
    return row ?? null;
  }
}
