import type { KeyEnvironment } from '../common/access/auth-context';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { numericTransformer } from '../database/column-transformers';
import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import type { ClickSource } from './click-source';

export const DEVICE_CLASSES = ['desktop', 'mobile', 'tablet', 'unknown'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** Click record [S] plus visitor country and device class; no IP, no user agent, ever. */
@Entity('clicks')
export class ClickEntity {
  /** ULID, made at the edge: the stream consumer's idempotency key. */
  @PrimaryColumn({ name: 'record_id', type: 'varchar', length: 26 })
  recordId: string;

  @PrimaryColumn({ name: 'clicked_at', type: 'timestamptz', precision: 3 })
  clickedAt: Date;

  @Column({ name: 'link_id', type: 'varchar', length: 26 })
  linkId: string;

  @Column({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  /** The environment of the link clicked: test clicks never count against the quota. */
  @Column({ type: 'varchar', length: 4, default: 'live' })
  environment: KeyEnvironment;

  /** Inferred from the hostname for passthrough clicks; null when no merchant matches. */
  @Column({ name: 'merchant_id', type: 'varchar', length: 64, nullable: true })
  merchantId: string | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  region: string | null;

  @Column({ name: 'network_id', type: 'varchar', length: 40, nullable: true })
  networkId: NetworkId | null;

  @Column({ type: 'varchar', length: 20 })
  preset: RoutingPresetId;

  @Column({ type: 'varchar', length: 12 })
  outcome: RoutingOutcome;

  @Column({
    name: 'normalized_epc_usd',
    type: 'numeric',
    precision: 12,
    scale: 6,
    transformer: numericTransformer,
  })
  normalizedEpcUsd: number;

  /** The routing factor C_r (0 to 1.1); 0 for passthrough. */
  @Column({ type: 'numeric', precision: 5, scale: 4, transformer: numericTransformer })
  confidence: number;

  @Column({ name: 'deep_link_used', type: 'boolean' })
  deepLinkUsed: boolean;

  @Column({ name: 'private_deal_applied', type: 'boolean', default: false })
  privateDealApplied: boolean;

  @Column({ name: 'visitor_country', type: 'char', length: 2, nullable: true })
  visitorCountry: string | null;

  @Column({ name: 'device_class', type: 'varchar', length: 10 })
  deviceClass: DeviceClass;

  /** The redirect rule that picked the destination; null: the link's own. */
  @Column({ name: 'rule_index', type: 'smallint', nullable: true })
  ruleIndex: number | null;

  /** `qr` for a scan of the link's QR code, else `link` (ClickSources1764730000000). */
  @Column({ type: 'varchar', length: 8, default: 'link' })
  source: ClickSource;
}
