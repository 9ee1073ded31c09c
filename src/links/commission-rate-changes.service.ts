import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { EventOutboxService } from '../events/event-outbox.service';
import { diffKnowledgeBase, MerchantDifference } from '../merchants/kb/knowledge-base-diff';
import type { MerchantProfile } from '../merchants/kb/merchant-profile';
import { EpcHintChange, MerchantsService } from '../merchants/merchants.service';
import { LinksRepository } from './links.repository';

export interface CommissionRateChangeResult {
  change: EpcHintChange;
  /** Creators (per environment) told through `commission_rate.changed`. */
  creatorsNotified: number;
  linksAffected: number;
}

/** What `kb apply` found, and did unless it was a dry run. */
export interface KnowledgeBaseApplyResult {
  applied: boolean;
  /** Merchants whose stored profile differed from the bundle (or that were missing). */
  differences: MerchantDifference[];
  unchanged: number;
  /** Events sent, one per EPC hint change and creator environment holding links on it. */
  creatorsNotified: number;
}

/**
 * A merchant's EPC hint changed (`npx linkpilot merchants set-epc`, or a bundled knowledge
 * base applied with `npx linkpilot kb apply`): stores it and reports `commission_rate.changed`
 * to each creator with links on that merchant, once per environment, with the before/after
 * and how many of its links are affected.
 */
@Injectable()
export class CommissionRateChangesService {
  constructor(
    private readonly merchants: MerchantsService,
    private readonly links: LinksRepository,
    private readonly outbox: EventOutboxService,
  ) {}

  async setEpcHint(
    merchantId: string,
    region: string,
    networkId: string,
    epc: number,
  ): Promise<CommissionRateChangeResult> {
    const change = await this.merchants.setEpcHint(merchantId, region, networkId, epc);
    if (change.before === change.after) return { change, creatorsNotified: 0, linksAffected: 0 };
    const { creatorsNotified, linksAffected } = await this.announce(change);
    return { change, creatorsNotified, linksAffected };
  }

  /**
   * Compares the stored knowledge base with `bundled` (the merchants named, or all) and,
   * unless `dryRun`, stores the bundled profiles that differ, operator changes included, and
   * announces every EPC hint that changed value (hints added or removed with a region or
   * network are listed, not announced: creators hold no rate for them to change).
   */
  async applyKnowledgeBase(
    bundled: MerchantProfile[],
    options: { merchantIds?: string[]; dryRun: boolean },
  ): Promise<KnowledgeBaseApplyResult> {
    const selected = selectProfiles(bundled, options.merchantIds ?? []);
    const differences = diffKnowledgeBase(await this.merchants.readStored(), selected);
    const result = {
      applied: !options.dryRun,
      differences,
      unchanged: selected.length - differences.length,
      creatorsNotified: 0,
    };
    if (options.dryRun) return result;
    const changed = new Set(differences.map((difference) => difference.merchantId));
    await this.merchants.storeBundled(
      selected.filter((profile) => changed.has(profile.merchantId)),
    );
    for (const { merchantId, epcHints } of differences) {
      for (const hint of epcHints) {
        if (hint.before === null || hint.after === null) continue;
        const change = { merchantId, ...hint, before: hint.before, after: hint.after };
        result.creatorsNotified += (await this.announce(change)).creatorsNotified;
      }
    }
    return result;
  }

  private async announce(
    change: EpcHintChange,
  ): Promise<{ creatorsNotified: number; linksAffected: number }> {
    const holders = await this.links.countActiveByMerchant(change.merchantId);
    for (const holder of holders) {
      await this.outbox.publish(holder, 'commission_rate.changed', {
        merchantId: change.merchantId,
        region: change.region,
        networkId: change.networkId,
        currency: change.currency,
        epcHint: { before: change.before, after: change.after },
        linksAffected: holder.links,
      });
    }
    return {
      creatorsNotified: holders.length,
      linksAffected: holders.reduce((sum, holder) => sum + holder.links, 0),
    };
  }
}

/** The bundled profiles of the merchants named (all when none is); an unknown id is refused. */
function selectProfiles(bundled: MerchantProfile[], merchantIds: string[]): MerchantProfile[] {
  if (merchantIds.length === 0) return bundled;
  const known = new Set(bundled.map((profile) => profile.merchantId));
  const unknown = merchantIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const message = `No bundled merchant with id ${unknown.join(', ')}.`;
    throw new AppError(ErrorCode.VALIDATION_ERROR, message, { merchantIds: [message] });
  }
  return bundled.filter((profile) => merchantIds.includes(profile.merchantId));
}
