import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../common/access/auth-context';
import { BILLING_CYCLES, BillingCycle } from './creator.entity';
import { PLAN_IDS, PlanId } from './plan.entity';

/** The [G] plan object, served beside the [S] `plan` string (which [S] fixes as an enum). */
export class PlanDetailsResponse {
  @ApiProperty({ enum: PLAN_IDS }) planId: PlanId;
  @ApiProperty() displayName: string;
  @ApiProperty() monthlyPriceUsd: number;
  @ApiProperty() includedClicks: number;
  @ApiProperty() hasApiAccess: boolean;
  @ApiProperty() hasBulkAccess: boolean;
  @ApiProperty() hasWebhooks: boolean;
}

export class AccountResponse {
  @ApiProperty({ readOnly: true }) creatorId: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() displayName: string;
  @ApiProperty({ enum: PLAN_IDS }) plan: PlanId;
  @ApiProperty({ type: PlanDetailsResponse }) planDetails: PlanDetailsResponse;
  @ApiProperty({ enum: BILLING_CYCLES }) billingCycle: BillingCycle;
  @ApiProperty({
    enum: KEY_ENVIRONMENTS,
    description: 'The environment whose usage the clicks fields count (the key’s)',
  })
  environment: KeyEnvironment;
  @ApiProperty({ minimum: 0 }) clicksUsedThisPeriod: number;
  @ApiProperty({ minimum: 0 }) clicksIncludedThisPeriod: number;
  @ApiProperty({ minimum: 0 }) clicksRemainingThisPeriod: number;
  @ApiProperty({ format: 'date', example: '2026-11-30' }) periodEnd: string;
  @ApiProperty() trialActive: boolean;
  @ApiPropertyOptional({ format: 'date-time' }) trialEndAt?: string;
}
