import { Injectable } from '@nestjs/common';
import { EventOutboxService } from '../events/event-outbox.service';
import { EpcHintChange, MerchantsService } from '../merchants/merchants.service';
import { LinksRepository } from './links.repository';

export interface CommissionRateChangeResult {
  change: EpcHintChange;
  /** Creators (per environment) told through `commission_rate.changed`. */
  creatorsNotified: number;
  linksAffected: number;
}

/**
 * A merchant's EPC hint changed (`npx linkpilot merchants set-epc`): stores it and reports
 * `commission_rate.changed` to each creator with links on that merchant, once per
 * environment, with the before/after and how many of its links are affected.
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
    const holders = await this.links.countActiveByMerchant(merchantId);
    for (const holder of holders) {
      await this.outbox.publish(holder, 'commission_rate.changed', {
        merchantId,
        region,
        networkId,
        currency: change.currency,
        epcHint: { before: change.before, after: change.after },
        linksAffected: holder.links,
      });
    }
    return {
      change,
      creatorsNotified: holders.length,
      linksAffected: holders.reduce((sum, holder) => sum + holder.links, 0),
    };
  }
}
