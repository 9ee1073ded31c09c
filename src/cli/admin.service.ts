import { Injectable, Optional } from '@nestjs/common';
import {
  ClickRetentionReport,
  ClickRetentionRequest,
  ClickRetentionService,
} from '../analytics/click-retention.service';
import {
  ClickRollupsService,
  RollupRebuildProgress,
  RollupRebuildRequest,
  RollupRebuildSummary,
} from '../analytics/click-rollups.service';
import {
  CommissionRateChangeResult,
  CommissionRateChangesService,
  KnowledgeBaseApplyResult,
} from '../links/commission-rate-changes.service';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import { CreatorChanges, CreatorsService, CreatorWithPlan } from '../account/creators.service';
import { PlanId } from '../account/plan.entity';
import { KeyEnvironment } from '../auth/api-key.entity';
import { ApiKeysService, checkKeyOptions, IssuedApiKey } from '../auth/api-keys.service';
import { FxRefreshResult, FxService } from '../fx/fx.service';
import { NetworkAccountsService, NetworkAccountView } from '../networks/network-accounts.service';
import type { SandboxResetResponse } from '../sandbox/sandbox.response';
import { SandboxService } from '../sandbox/sandbox.service';
import {
  ConversionImportProgress,
  ConversionImportReport,
  ConversionImportService,
} from '../conversions/conversion-import.service';
import {
  EncryptionKeyRotation,
  WebhookSecretRotationService,
} from '../webhooks/webhook-secret-rotation.service';
import type { RoutingMode } from '../routing/engine/routing-types';

export interface CreatorView {
  creatorId: string;
  email: string;
  displayName: string;
  plan: PlanId;
  includedClicks: number;
  routingMode: RoutingMode;
}

export interface CreateCreatorCommand {
  planId: PlanId;
  email?: string;
  displayName?: string;
  includedClicks?: number;
  withKey: boolean;
  environment: KeyEnvironment;
  allowIps: string[];
  withNetworkAccounts: boolean;
}

/**
 * `analytics retention` did not finish its work: another process was running it
 * (RETENTION_RUNNING), or a partition due for dropping was kept (RETENTION_INCOMPLETE).
 */
export class ClickRetentionIncompleteError extends Error {
  constructor(
    readonly code: 'RETENTION_RUNNING' | 'RETENTION_INCOMPLETE',
    message: string,
    readonly details?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'ClickRetentionIncompleteError';
  }
}

const toCreatorView = (creator: CreatorWithPlan): CreatorView => ({
  creatorId: creator.id,
  email: creator.email,
  displayName: creator.displayName,
  plan: creator.planId,
  includedClicks: creator.includedClicksOverride ?? creator.plan.includedClicks,
  routingMode: creator.routingMode,
});

/** The operator's actions, one method per CLI command, composed from the module services. */
@Injectable()
export class AdminService {
  constructor(
    private readonly creators: CreatorsService,
    private readonly apiKeys: ApiKeysService,
    private readonly networkAccounts: NetworkAccountsService,
    private readonly fx: FxService,
    private readonly clickRollups: ClickRollupsService,
    private readonly clickRetention: ClickRetentionService,
    /** Present only when the CLI booted with the sandbox (CliModuleOptions). */
    @Optional() private readonly sandbox?: SandboxService,
    /** Present only when the CLI booted with links (merchants set-epc, kb apply). */
    @Optional() private readonly commissionRates?: CommissionRateChangesService,
    /** Present only when the CLI booted with the webhook secrets (webhooks rotate-encryption-key). */
    @Optional() private readonly webhookSecrets?: WebhookSecretRotationService,
    /** Present only when the CLI booted with conversions (conversions import). */
    @Optional() private readonly conversionImports?: ConversionImportService,
  ) {}

  /** Records a network's report export for a creator's environment (README: Conversions). */
  async importConversions(
    command: { creatorId: string; networkId: string; environment: KeyEnvironment; file: string },
    onProgress: (progress: ConversionImportProgress) => void,
  ): Promise<{ import: ConversionImportReport }> {
    if (this.conversionImports === undefined) {
      throw new Error('The CLI was booted without conversions');
    }
    await this.creators.findWithPlanOrThrow(command.creatorId);
    const scope = { creatorId: command.creatorId, environment: command.environment };
    return {
      import: await this.conversionImports.importFile(
        scope,
        command.networkId,
        command.file,
        onProgress,
      ),
    };
  }

  /** Re-encrypts every stored webhook signing secret under WEBHOOK_SECRET_KEY. */
  async rotateWebhookEncryptionKey(): Promise<{ encryptionKey: EncryptionKeyRotation }> {
    if (this.webhookSecrets === undefined) {
      throw new Error('The CLI was booted without the webhook secrets');
    }
    return { encryptionKey: await this.webhookSecrets.reencryptAll() };
  }

  /** Changes a merchant's EPC hint and reports commission_rate.changed to creators with links on it. */
  async setMerchantEpc(
    merchantId: string,
    region: string,
    networkId: string,
    epc: number,
  ): Promise<{ commissionRate: CommissionRateChangeResult }> {
    if (this.commissionRates === undefined) throw new Error('The CLI was booted without links');
    return {
      commissionRate: await this.commissionRates.setEpcHint(merchantId, region, networkId, epc),
    };
  }

  /** Stores the bundled knowledge base over the stored one and announces its EPC changes. */
  async applyKnowledgeBase(
    bundled: MerchantProfile[],
    options: { merchantIds?: string[]; dryRun: boolean },
  ): Promise<{ knowledgeBase: KnowledgeBaseApplyResult }> {
    if (this.commissionRates === undefined) throw new Error('The CLI was booted without links');
    return { knowledgeBase: await this.commissionRates.applyKnowledgeBase(bundled, options) };
  }

  /** Recomputes the click rollups from the stored clicks (docs/analytics.md). */
  async rebuildClickRollups(
    request: RollupRebuildRequest,
    onProgress: (progress: RollupRebuildProgress) => void,
  ): Promise<{ rebuild: RollupRebuildSummary }> {
    if (request.creatorId !== undefined) await this.creators.findWithPlanOrThrow(request.creatorId);
    return { rebuild: await this.clickRollups.rebuild(request, onProgress) };
  }

  /**
   * Drops the click partitions older than CLICK_RETENTION_MONTHS once their rollups are
   * checked, and deletes the rollups older than ROLLUP_RETENTION_MONTHS (docs/analytics.md).
   */
  async applyClickRetention(
    request: ClickRetentionRequest,
    onProgress: (line: string) => void,
  ): Promise<{ retention: ClickRetentionReport }> {
    const report = await this.clickRetention.run(request, onProgress);
    if (!report.ran) {
      throw new ClickRetentionIncompleteError(
        'RETENTION_RUNNING',
        "Another process is running the click retention (a server's daily job, or this command): try again once it is done.",
      );
    }
    const { droppedPartitions, refusedPartitions, deferredPartitions } = report;
    if (refusedPartitions.length + deferredPartitions.length > 0) {
      throw new ClickRetentionIncompleteError(
        'RETENTION_INCOMPLETE',
        `Kept ${refusedPartitions.length + deferredPartitions.length} click partitions due for dropping: ` +
          'refused ones have rollups that still differ from their clicks after a rebuild, deferred ones found clicks locked (stderr says which).',
        { droppedPartitions, refusedPartitions, deferredPartitions },
      );
    }
    return { retention: report };
  }

  /** Removes a creator's test links and test clicks; live records are never touched. */
  async resetSandbox(
    creatorId: string,
  ): Promise<{ sandbox: { creatorId: string } & SandboxResetResponse }> {
    if (this.sandbox === undefined) throw new Error('The CLI was booted without the sandbox');
    await this.creators.findWithPlanOrThrow(creatorId);
    return { sandbox: { creatorId, ...(await this.sandbox.reset(creatorId)) } };
  }

  async createCreator(command: CreateCreatorCommand): Promise<{
    creator: CreatorView;
    networkAccounts: NetworkAccountView[];
    apiKey?: IssuedApiKey;
  }> {
    if (command.withKey) {
      const plan = await this.creators.findPlanOrThrow(command.planId);
      checkKeyOptions(plan, command.environment, command.allowIps);
    }
    const creator = await this.creators.create({
      planId: command.planId,
      email: command.email,
      displayName: command.displayName,
      includedClicksOverride: command.includedClicks,
    });
    const networkAccounts = command.withNetworkAccounts
      ? await this.networkAccounts.createDemoAccounts(creator.id)
      : [];
    const apiKey = command.withKey
      ? await this.apiKeys.issue(creator.id, creator.plan, command.environment, command.allowIps)
      : undefined;
    return { creator: toCreatorView(creator), networkAccounts, ...(apiKey ? { apiKey } : {}) };
  }

  async updateCreator(
    creatorId: string,
    changes: CreatorChanges,
  ): Promise<{ creator: CreatorView }> {
    return { creator: toCreatorView(await this.creators.update(creatorId, changes)) };
  }

  async createKey(
    creatorId: string,
    environment: KeyEnvironment,
    allowIps: string[],
  ): Promise<{ apiKey: IssuedApiKey }> {
    const creator = await this.creators.findWithPlanOrThrow(creatorId);
    return { apiKey: await this.apiKeys.issue(creator.id, creator.plan, environment, allowIps) };
  }

  revokeKey(keyId: string): Promise<{ keyId: string; revokedAt: string }> {
    return this.apiKeys.revoke(keyId);
  }

  async setNetworkAccount(
    creatorId: string,
    networkId: string,
    affiliateId: string,
  ): Promise<{ creatorId: string; networkAccount: NetworkAccountView }> {
    await this.creators.findWithPlanOrThrow(creatorId);
    const networkAccount = await this.networkAccounts.set(creatorId, networkId, affiliateId);
    return { creatorId, networkAccount };
  }

  async removeNetworkAccount(
    creatorId: string,
    networkId: string,
  ): Promise<{ creatorId: string; networkId: string; removed: boolean }> {
    await this.creators.findWithPlanOrThrow(creatorId);
    const { removed } = await this.networkAccounts.remove(creatorId, networkId);
    return { creatorId, networkId, removed };
  }

  async listNetworkAccounts(
    creatorId: string,
  ): Promise<{ creatorId: string; networkAccounts: NetworkAccountView[] }> {
    await this.creators.findWithPlanOrThrow(creatorId);
    return { creatorId, networkAccounts: await this.networkAccounts.listActive(creatorId) };
  }

  /** Fetches FX rates now; throws FX_DATA_UNAVAILABLE (previous rates kept) when both sources fail. */
  refreshFx(): Promise<FxRefreshResult> {
    return this.fx.refresh();
  }
}
