import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { KeyEnvironment } from '../common/access/auth-context';
import { numericTransformer } from '../database/column-transformers';
import type { ProductCategory } from '../merchants/kb/merchant-profile';
import type { NetworkId } from '../networks/network-ids';
import type { StoredRedirectRule } from './redirect-rule';
import type { LinkDestination } from './link-destination';

import type {
  DeepLinkStatus,
  DeviceType,
  HealthStatus,
  RoutingOutcome,
  RoutingPresetId,
  UtmOverride,
} from '../routing/engine/routing-types';

export type {
  DeepLinkStatus,
  DeviceType,
  HealthStatus,
  RoutingOutcome,
  RoutingPresetId,
  UtmOverride,
};

/** The stored network pin: [S] Link.networkOverride. */
export interface NetworkOverride {
  networkId: NetworkId;
  expiresAt?: string;
  reason?: string;
}

@Entity('links')
export class LinkEntity {
  /** ULID: sortable by creation. */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ name: 'creator_id', type: 'varchar', length: 26 })
  creatorId: string;

  /** The environment of the key that created it: test links live in the sandbox. */
  @Column({ type: 'varchar', length: 4 })
  environment: KeyEnvironment;

  @Column({ type: 'varchar', length: 300 })
  title: string;

  /** As entered, in its WHATWG serialisation (is-https-url.ts): passthrough serves exactly this. */
  @Column({ name: 'original_url', type: 'varchar', length: 4096 })
  originalUrl: string;

  /** '' when passthrough is active ([S]). */
  @Column({ name: 'canonical_url', type: 'varchar', length: 4096 })
  canonicalUrl: string;

  @Column({ name: 'routed_url', type: 'text' })
  routedUrl: string;

  /** Null for a domain outside the knowledge base. */
  @Column({ name: 'merchant_id', type: 'varchar', length: 64, nullable: true })
  merchantId: string | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  region: string | null;

  @Column({ name: 'network_id', type: 'varchar', length: 40, nullable: true })
  networkId: NetworkId | null;

  @Column({ type: 'varchar', length: 20 })
  preset: RoutingPresetId;

  @Column({ type: 'varchar', length: 20, nullable: true })
  category: ProductCategory | null;

  @Column({ name: 'passthrough_enabled', type: 'boolean', default: false })
  passthroughEnabled: boolean;

  @Column({ name: 'passthrough_reason', type: 'varchar', length: 500, nullable: true })
  passthroughReason: string | null;

  @Column({ name: 'passthrough_enabled_at', type: 'timestamptz', precision: 3, nullable: true })
  passthroughEnabledAt: Date | null;

  @Column({ name: 'network_override', type: 'jsonb', nullable: true })
  networkOverride: NetworkOverride | null;

  @Column({ name: 'utm_override', type: 'jsonb', nullable: true })
  utmOverride: UtmOverride | null;

  @Column({ name: 'group_id', type: 'varchar', length: 128, nullable: true })
  groupId: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  notes: string | null;

  /** Visitors' query parameters are appended to the destination (never the tracking ones). */
  @Column({ name: 'forward_query', type: 'boolean', default: false })
  forwardQuery: boolean;

  /** Click ids to the networks for this link; null: the creator's setting. */
  @Column({ type: 'boolean', nullable: true })
  attribution: boolean | null;

  /** The visitor context the link was routed for at creation. */
  @Column({ name: 'visitor_country', type: 'char', length: 2, nullable: true })
  visitorCountry: string | null;

  @Column({ name: 'device_type', type: 'varchar', length: 10, nullable: true })
  deviceType: DeviceType | null;

  /** Outcome of the routing decision at creation (computed even when passthrough is on). */
  @Column({ type: 'varchar', length: 12 })
  outcome: RoutingOutcome;

  /** The engine's reason for the decision (e.g. best_epc, unsupported_merchant). */
  @Column({ name: 'routing_reason', type: 'varchar', length: 40 })
  routingReason: string;

  /** 0-100 = min(100, round(100 * confidenceFactor)). */
  @Column({ type: 'smallint' })
  confidence: number;

  @Column({
    name: 'confidence_factor',
    type: 'numeric',
    precision: 5,
    scale: 4,
    transformer: numericTransformer,
  })
  confidenceFactor: number;

  @Column({
    name: 'normalized_epc_usd',
    type: 'numeric',
    precision: 12,
    scale: 6,
    transformer: numericTransformer,
  })
  normalizedEpcUsd: number;

  @Column({ name: 'deep_link_used', type: 'boolean' })
  deepLinkUsed: boolean;

  /** The routing trace of the decision the link was created with. */
  @Column({ name: 'crc_trace', type: 'jsonb' })
  crcTrace: Record<string, unknown>;

  @Column({ name: 'health_status', type: 'varchar', length: 10, default: 'unknown' })
  healthStatus: HealthStatus;

  @Column({ name: 'deep_link_status', type: 'varchar', length: 12, default: 'unchecked' })
  deepLinkStatus: DeepLinkStatus;

  @Column({ name: 'deep_link_checked_at', type: 'timestamptz', precision: 3, nullable: true })
  deepLinkCheckedAt: Date | null;

  @Column({ name: 'last_health_check_at', type: 'timestamptz', precision: 3, nullable: true })
  lastHealthCheckAt: Date | null;

  /** A branded domain (docs/domains.md): all three set, or none. */
  @Column({ name: 'domain_id', type: 'varchar', length: 26, nullable: true })
  domainId: string | null;

  /** The domain's hostname, which never changes: the link's URL is written without a join. */
  @Column({ name: 'domain_hostname', type: 'varchar', length: 253, nullable: true })
  domainHostname: string | null;

  /** Lowercase; unique among the domain's live links (links_domain_slug). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  slug: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', precision: 3, nullable: true })
  deletedAt: Date | null;

  /** Redirect rules, in order, each with its routed destination; null: none. */
  @Column({ type: 'jsonb', nullable: true })
  rules: StoredRedirectRule[] | null;
  // Expiry and click caps (docs/edge.md "Expiry and click caps"): null where unused.
  @Column({ name: 'expires_at', type: 'timestamptz', precision: 3, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'max_clicks', type: 'integer', nullable: true })
  maxClicks: number | null;

  /** Where visitors go past either: the expired URL and its route; null answers 410. */
  @Column({ name: 'expired_destination', type: 'jsonb', nullable: true })
  expiredDestination: LinkDestination | null;
}
