import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NetworkAccountEntity } from './network-account.entity';
import type { NetworkId } from './network-ids';

/** A creator's affiliate id on one network, as the table holds it. */
export type NetworkAccountRow = Pick<
  NetworkAccountEntity,
  'creatorId' | 'networkId' | 'affiliateId' | 'isActive'
>;

/** The `network_accounts` table. */
@Injectable()
export class NetworkAccountsRepository {
  constructor(
    @InjectRepository(NetworkAccountEntity)
    private readonly accounts: Repository<NetworkAccountEntity>,
  ) {}

  /** Each creator's active affiliate ids, network by network in id order, in one statement. */
  async readActiveAffiliateIds(creatorIds: string[]): Promise<Map<string, [NetworkId, string][]>> {
    const rows: { creator_id: string; accounts: [NetworkId, string][] }[] =
      await this.accounts.query(
        `SELECT creator_id,
                json_agg(json_build_array(network_id, affiliate_id) ORDER BY network_id) AS accounts
           FROM network_accounts
          WHERE creator_id = ANY($1::varchar[]) AND is_active
          GROUP BY creator_id`,
        [creatorIds],
      );
    return new Map(rows.map((row) => [row.creator_id, row.accounts]));
  }

  async insertMany(rows: NetworkAccountRow[]): Promise<void> {
    await this.accounts.save(rows.map((row) => this.accounts.create(row)));
  }

  /** Creates or replaces the creator's account on the network. */
  async upsert(row: NetworkAccountRow): Promise<void> {
    await this.accounts.upsert(row, ['creatorId', 'networkId']);
  }

  /** Whether there was an account to delete. */
  async delete(creatorId: string, networkId: NetworkId): Promise<boolean> {
    const result = await this.accounts.delete({ creatorId, networkId });
    return (result.affected ?? 0) > 0;
  }

  findActive(creatorId: string): Promise<NetworkAccountRow[]> {
    return this.accounts.find({
      where: { creatorId, isActive: true },
      order: { networkId: 'ASC' },
    });
  }
}
