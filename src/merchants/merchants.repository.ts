import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { MerchantProfile } from './kb/merchant-profile';
import { MerchantEntity } from './merchant.entity';

/** The `merchants` table: the knowledge base's profiles, one row each. */
@Injectable()
export class MerchantsRepository {
  constructor(
    @InjectRepository(MerchantEntity) private readonly merchants: Repository<MerchantEntity>,
  ) {}

  findAll(): Promise<MerchantEntity[]> {
    return this.merchants.find();
  }

  findById(merchantId: string): Promise<MerchantEntity | null> {
    return this.merchants.findOneBy({ id: merchantId });
  }

  /** Stores an operator's change to a profile. */
  async updateProfileByOperator(merchantId: string, profile: MerchantProfile): Promise<void> {
    await this.merchants.update({ id: merchantId }, { profile, editedByOperator: true });
  }

  /** Stores these bundled profiles as they are, replacing the rows of the same ids. */
  async upsertBundled(profiles: MerchantProfile[]): Promise<void> {
    await this.merchants.upsert(
      profiles.map((profile) => ({
        id: profile.merchantId,
        version: profile.meta.version,
        profile,
        dataConfidenceScore: profile.meta.dataConfidenceScore,
        editedByOperator: false,
      })),
      ['id'],
    );
  }
}
