import { Column, Entity, PrimaryColumn } from 'typeorm';
import { numericTransformer } from '../database/column-transformers';

export const PLAN_IDS = ['free', 'creator', 'pro', 'publisher', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

@Entity('plans')
export class PlanEntity {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  id: PlanId;

  @Column({ name: 'display_name', type: 'varchar', length: 60 })
  displayName: string;

  @Column({
    name: 'monthly_price_usd',
    type: 'numeric',
    precision: 10,
    scale: 2,
    transformer: numericTransformer,
  })
  monthlyPriceUsd: number;

  @Column({ name: 'included_clicks', type: 'integer' })
  includedClicks: number;

  @Column({ name: 'has_api_access', type: 'boolean' })
  hasApiAccess: boolean;

  @Column({ name: 'has_bulk_access', type: 'boolean' })
  hasBulkAccess: boolean;

  @Column({ name: 'has_webhooks', type: 'boolean' })
  hasWebhooks: boolean;

  /** Test keys (`lp_test_sk_`) and their sandbox (Authentication item 3: Enterprise). */
  @Column({ name: 'has_test_keys', type: 'boolean' })
  hasTestKeys: boolean;

  /** Keys restricted to IP allowlists (Authentication item 9: Enterprise). */
  @Column({ name: 'has_ip_allowlists', type: 'boolean' })
  hasIpAllowlists: boolean;

  /** At its included clicks the quota stops counting (Free) instead of counting overage. */
  @Column({ name: 'is_hard_cap', type: 'boolean' })
  isHardCap: boolean;

  /** General API bucket per key; null when the plan has no API access. */
  @Column({ name: 'api_requests_per_minute', type: 'integer', nullable: true })
  apiRequestsPerMinute: number | null;

  /** POST /route bucket per key, used instead of the general one. */
  @Column({ name: 'route_requests_per_minute', type: 'integer', nullable: true })
  routeRequestsPerMinute: number | null;

  /** POST /links/bulk bucket per key, counted on top of the general one. */
  @Column({ name: 'bulk_requests_per_minute', type: 'integer', nullable: true })
  bulkRequestsPerMinute: number | null;

  /** Edge redirector limit per creator. */
  @Column({ name: 'edge_clicks_per_minute', type: 'integer' })
  edgeClicksPerMinute: number;

  /** Changed by an operator (docs/operations.md): the boot seed no longer overwrites it. */
  @Column({ name: 'edited_by_operator', type: 'boolean', default: false })
  editedByOperator: boolean;
}
