import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { KeyEnvironment } from '../common/access/auth-context';
import { numericTransformer } from '../database/column-transformers';

export const CONVERSION_STATUSES = ['pending', 'approved', 'reversed'] as const;
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

export const CONVERSION_SOURCES = ['api', 'postback', 'import'] as const;
export type ConversionSource = (typeof CONVERSION_SOURCES)[number];

/**
 * One status of one order, as a network reported it (migration Conversions1764560000000):
 * unique per creator, environment, network, order id and status, so a replay records nothing.
 * The attribution columns are copied from the click (null when the click id is unknown);
 * the `*Delta` columns are what the row added to the earnings rollups.
 */
@Entity('conversions')
export class ConversionEntity {
  /** ULID */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  @Column({ type: 'varchar', length: 4 })
  environment: KeyEnvironment;

  @Column({ name: 'network_id', type: 'varchar', length: 40 })
  networkId: string;

  @Column({ name: 'order_id', type: 'varchar', length: 128 })
  orderId: string;

  @Column({ type: 'varchar', length: 8 })
  status: ConversionStatus;

  @Column({ type: 'varchar', length: 8 })
  source: ConversionSource;

  /** The click id as the network sent it back (the click's record id when attributed). */
  @Column({ name: 'click_id', type: 'varchar', length: 64, nullable: true })
  clickId: string | null;

  @Column({ name: 'link_id', type: 'varchar', length: 26, nullable: true })
  linkId: string | null;

  @Column({ name: 'merchant_id', type: 'varchar', length: 64, nullable: true })
  merchantId: string | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  region: string | null;

  @Column({ name: 'visitor_country', type: 'char', length: 2, nullable: true })
  visitorCountry: string | null;

  @Column({ name: 'device_class', type: 'varchar', length: 10, nullable: true })
  deviceClass: string | null;

  @Column({ name: 'clicked_at', type: 'timestamptz', precision: 3, nullable: true })
  clickedAt: Date | null;

  @Column({
    name: 'sale_amount',
    type: 'numeric',
    precision: 16,
    scale: 4,
    transformer: numericTransformer,
  })
  saleAmount: number;

  @Column({ type: 'numeric', precision: 16, scale: 4, transformer: numericTransformer })
  commission: number;

  @Column({ type: 'char', length: 3 })
  currency: string;

  /** Units of `currency` per USD on `occurredAt`'s rates. */
  @Column({
    name: 'usd_rate',
    type: 'numeric',
    precision: 20,
    scale: 10,
    transformer: numericTransformer,
  })
  usdRate: number;

  @Column({
    name: 'sale_amount_usd',
    type: 'numeric',
    precision: 18,
    scale: 6,
    transformer: numericTransformer,
  })
  saleAmountUsd: number;

  @Column({
    name: 'commission_usd',
    type: 'numeric',
    precision: 18,
    scale: 6,
    transformer: numericTransformer,
  })
  commissionUsd: number;

  @Column({ name: 'occurred_at', type: 'timestamptz', precision: 3 })
  occurredAt: Date;

  /** The order's first row's `occurredAt`: every row of an order is counted in its bucket. */
  @Column({ name: 'bucket_at', type: 'timestamptz', precision: 3 })
  bucketAt: Date;

  @Column({ name: 'conversions_delta', type: 'smallint' })
  conversionsDelta: number;

  @Column({
    name: 'approved_usd_delta',
    type: 'numeric',
    precision: 18,
    scale: 6,
    transformer: numericTransformer,
  })
  approvedUsdDelta: number;

  @Column({
    name: 'pending_usd_delta',
    type: 'numeric',
    precision: 18,
    scale: 6,
    transformer: numericTransformer,
  })
  pendingUsdDelta: number;

  @Column({ name: 'recorded_at', type: 'timestamptz', precision: 3 })
  recordedAt: Date;
}
