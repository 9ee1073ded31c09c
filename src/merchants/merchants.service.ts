import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { MerchantProfile } from './kb/merchant-profile';
import { MerchantCatalog, MerchantFilter } from './merchant-catalog';
import { MerchantEntity } from './merchant.entity';
import {
  MerchantDetailResponse,
  MerchantListResponse,
  toMerchantSummary,
} from './merchant.response';

/**
 * The knowledge base as the rest of the service sees it: loaded from PostgreSQL once at boot
 * (profiles change only by a reviewed seed, which a restart picks up) and served from memory.
 */
@Injectable()
export class MerchantsService implements OnModuleInit {
  private readonly logger = new Logger(MerchantsService.name);
  private catalog = new MerchantCatalog([]);

  constructor(
    @InjectRepository(MerchantEntity) private readonly merchants: Repository<MerchantEntity>,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
  }

  async reload(): Promise<void> {
    const rows = await this.merchants.find();
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

  findProfileOrThrow(merchantId: string): MerchantProfile {
    const profile = this.catalog.find(merchantId);
    if (profile === undefined) {
      throw new AppError(ErrorCode.MERCHANT_NOT_FOUND, `No merchant with id ${merchantId}.`);
    }
    return profile;
  }
}
