import {
  Column,
  CreateDateColumn,
  Entity,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
  JoinColumn,
} from 'typeorm';
import { ROUTING_MODES, type RoutingMode } from '../routing/engine/routing-types';
import { PlanEntity, PlanId } from './plan.entity';

export const BILLING_CYCLES = ['monthly', 'annual'] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

@Entity('creators')
export class CreatorEntity {
  /** ULID */
  @PrimaryColumn({ type: 'varchar', length: 26 })
  id: string;

  @Column({ type: 'varchar', length: 320, unique: true })
  email: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200 })
  displayName: string;

  @Column({ name: 'plan_id', type: 'varchar', length: 20 })
  planId: PlanId;

  @ManyToOne(() => PlanEntity, { eager: false })
  @JoinColumn({ name: 'plan_id' })
  plan?: PlanEntity;

  @Column({ name: 'billing_cycle', type: 'varchar', length: 10, default: 'monthly' })
  billingCycle: BillingCycle;

  /** Overrides the plan's included clicks for this creator (negotiated deals, tests). */
  @Column({ name: 'included_clicks_override', type: 'integer', nullable: true })
  includedClicksOverride: number | null;

  @Column({ name: 'trial_ends_at', type: 'timestamptz', precision: 3, nullable: true })
  trialEndsAt: Date | null;

  /** How the creator's links are scored (docs/routing.md section 10). */
  @Column({ name: 'routing_mode', type: 'varchar', length: 7, default: ROUTING_MODES[0] })
  routingMode: RoutingMode;
  /**
   * Click ids to the networks: routed URLs carry the network's sub-id parameter with the
   * click's record id (README "Conversions"). Off by default; a link's own setting wins.
   */
  @Column({ type: 'boolean', default: false })
  attribution: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
