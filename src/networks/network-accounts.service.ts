import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { NetworkAccountEntity } from './network-account.entity';
import { isNetworkId, NETWORK_IDS, NetworkId } from './network-ids';

export interface NetworkAccountView {
  networkId: NetworkId;
  affiliateId: string;
  isActive: boolean;
}

const toView = (account: NetworkAccountEntity): NetworkAccountView => ({
  networkId: account.networkId,
  affiliateId: account.affiliateId,
  isActive: account.isActive,
});

@Injectable()
export class NetworkAccountsService {
  constructor(
    @InjectRepository(NetworkAccountEntity)
    private readonly accounts: Repository<NetworkAccountEntity>,
  ) {}

  /**
   * The active affiliate ids of each creator, network by network in id order, in one
   * statement (the edge's batch read). A creator with none is absent from the map.
   */
  async readActiveAffiliateIds(creatorIds: string[]): Promise<Map<string, [NetworkId, string][]>> {
    const rows: { creator_id: string; accounts: [NetworkId, string][] }[] =
      await this.accounts.manager.query(
        `SELECT creator_id,
                json_agg(json_build_array(network_id, affiliate_id) ORDER BY network_id) AS accounts
           FROM network_accounts
          WHERE creator_id = ANY($1::varchar[]) AND is_active
          GROUP BY creator_id`,
        [creatorIds],
      );
    return new Map(rows.map((row) => [row.creator_id, row.accounts]));
  }

  /** Gives a new creator an active demo account (a generated tracking id) on all 12 networks. */
  async createDemoAccounts(creatorId: string): Promise<NetworkAccountView[]> {
    const suffix = randomBytes(4).toString('hex');
    const accounts = NETWORK_IDS.map((networkId) =>
      this.accounts.create({
        creatorId,
        networkId,
        affiliateId: `lpdemo-${networkId.replace(/_/g, '')}-${suffix}`,
        isActive: true,
      }),
    );
    await this.accounts.save(accounts);
    return accounts.map(toView);
  }

  async set(
    creatorId: string,
    networkId: string,
    affiliateId: string,
  ): Promise<NetworkAccountView> {
    const id = assertNetworkId(networkId);
    if (!/^[A-Za-z0-9._~-]{1,100}$/.test(affiliateId)) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'Invalid affiliate id.', {
        affiliateId: ['must be 1 to 100 letters, digits, dots, dashes, underscores or tildes'],
      });
    }
    await this.accounts.upsert({ creatorId, networkId: id, affiliateId, isActive: true }, [
      'creatorId',
      'networkId',
    ]);
    return { networkId: id, affiliateId, isActive: true };
  }

  async remove(creatorId: string, networkId: string): Promise<{ removed: boolean }> {
    const result = await this.accounts.delete({ creatorId, networkId: assertNetworkId(networkId) });
    return { removed: (result.affected ?? 0) > 0 };
  }

  async listActive(creatorId: string): Promise<NetworkAccountView[]> {
    const accounts = await this.accounts.find({
      where: { creatorId, isActive: true },
      order: { networkId: 'ASC' },
    });
    return accounts.map(toView);
  }
}

function assertNetworkId(networkId: string): NetworkId {
  if (!isNetworkId(networkId)) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, `Unknown network ${networkId}.`, {
      networkId: [`must be one of ${NETWORK_IDS.join(', ')}`],
    });
  }
  return networkId;
}
