import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { StoredProfile } from './kb/knowledge-base-diff';
import { MerchantProfile } from './kb/merchant-profile';
import { MerchantCatalog, MerchantFilter } from './merchant-catalog';
import { MerchantsRepository } from './merchants.repository';
import {
  MerchantDetailResponse,
  MerchantListResponse,
  toMerchantSummary,
} from './merchant.response';

/** One EPC hint's change, in the region's currency. */
export interface EpcHintChange {
  merchantId: string;
  region: string;
  networkId: string;
  currency: string;
  before: number;
  after: number;
}

/**
 * The knowledge base as the rest of the service sees it: loaded from PostgreSQL once at boot
 * (profiles change by a reviewed seed or an operator's command, which a restart picks up) and
 * served from memory.
 */
@Injectable()
export class MerchantsService implements OnModuleInit {
  private readonly logger = new Logger(MerchantsService.name);
  private catalog = new MerchantCatalog([]);

  constructor(private readonly merchants: MerchantsRepository) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  async reload(): Promise<void> {
    const rows = await this.merchants.findAll();
    this.catalog = new MerchantCatalog(rows.map((row) => row.profile));
    if (rows.length === 0) {
      this.logger.warn('The merchant knowledge base is empty; run `npm run db:seed`.');
    }
  }

  get knowledgeBase(): MerchantCatalog {
    return this.catalog;
  }

  list(filter: MerchantFilter): MerchantListResponse {
    const merchants = this.catalog.filter(filter).map(toMerchantSummary);
    return { merchants, total: merchants.length };
  }

  getOrThrow(merchantId: string): MerchantDetailResponse {
    return { merchant: this.findProfileOrThrow(merchantId) };
  }

  /**
   * Changes one EPC hint of a merchant's region (an operator's correction after a network's
   * rate change, `npx linkpilot merchants set-epc`) and reloads this process's knowledge
   * base; other running servers pick it up when they restart, like a seed.
   */
  async setEpcHint(
    merchantId: string,
    regionId: string,
    networkId: string,
    epc: number,
  ): Promise<EpcHintChange> {
    if (!Number.isFinite(epc) || epc < 0) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'epc must be a number >= 0.', {
        epc: ['epc must be a number >= 0'],
      });
    }
    const row = await this.merchants.findById(merchantId);
    if (row === null) {
      throw new AppError(ErrorCode.MERCHANT_NOT_FOUND, `No merchant with id ${merchantId}.`);
    }
    const region = row.profile.regions[regionId];
    if (region === undefined) {
      const regions = Object.keys(row.profile.regions).join(', ');
      throw new AppError(ErrorCode.VALIDATION_ERROR, `region must be one of ${regions}.`, {
        region: [`region must be one of ${regions}`],
      });
    }
    const hints = region.epcHints as Record<string, number | undefined>;
    const before = hints[networkId];
    if (before === undefined) {
      const networks = Object.keys(hints).join(', ');
      throw new AppError(ErrorCode.VALIDATION_ERROR, `network must be one of ${networks}.`, {
        network: [`network must be one of ${networks}`],
      });
    }
    hints[networkId] = epc;
    // Marked, so the seed that runs at every boot leaves the operator's value in place.
    await this.merchants.updateProfileByOperator(merchantId, row.profile);
    await this.reload();
    return {
      merchantId,
      region: regionId,
      networkId,
      currency: region.baseCurrency,
      before,
      after: epc,
    };
  }

  /** Every stored profile by merchant id, as `kb apply` compares them with the bundle. */
  async readStored(): Promise<Map<string, StoredProfile>> {
    const rows = await this.merchants.findAll();
    return new Map(
      rows.map((row) => [row.id, { profile: row.profile, editedByOperator: row.editedByOperator }]),
    );
  }

  /**
   * Stores these bundled profiles as they are (`kb apply`): the rows are the seed's again,
   * operator changes included. Reloads this process's knowledge base.
   */
  async storeBundled(profiles: MerchantProfile[]): Promise<void> {
    if (profiles.length === 0) return;
    await this.merchants.upsertBundled(profiles);
    await this.reload();
  }

  findProfileOrThrow(merchantId: string): MerchantProfile {
    const profile = this.catalog.find(merchantId);
    if (profile === undefined) {
      throw new AppError(ErrorCode.MERCHANT_NOT_FOUND, `No merchant with id ${merchantId}.`);
    }
    return profile;
  }
}
