import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { NetworkAccountRow, NetworkAccountsRepository } from './network-accounts.repository';
import { isNetworkId, NETWORK_IDS, NetworkId } from './network-ids';

export interface NetworkAccountView {
  networkId: NetworkId;
  affiliateId: string;
  isActive: boolean;
}

const toView = (account: NetworkAccountRow): NetworkAccountView => ({
  networkId: account.networkId,
  affiliateId: account.affiliateId,
  isActive: account.isActive,
});

@Injectable()
export class NetworkAccountsService {
  constructor(private readonly accounts: NetworkAccountsRepository) {}

  /**
   * The active affiliate ids of each creator, network by network in id order, in one
   * statement (the edge's batch read). A creator with none is absent from the map.
   */
  readActiveAffiliateIds(creatorIds: string[]): Promise<Map<string, [NetworkId, string][]>> {
    return this.accounts.readActiveAffiliateIds(creatorIds);
  }

  /** Gives a new creator an active demo account (a generated tracking id) on all 12 networks. */
  async createDemoAccounts(creatorId: string): Promise<NetworkAccountView[]> {
    const suffix = randomBytes(4).toString('hex');
    const accounts: NetworkAccountRow[] = NETWORK_IDS.map((networkId) => ({
      creatorId,
      networkId,
      affiliateId: `lpdemo-${networkId.replace(/_/g, '')}-${suffix}`,
      isActive: true,
    }));
    await this.accounts.insertMany(accounts);
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
    await this.accounts.upsert({ creatorId, networkId: id, affiliateId, isActive: true });
    return { networkId: id, affiliateId, isActive: true };
  }

  async remove(creatorId: string, networkId: string): Promise<{ removed: boolean }> {
    return { removed: await this.accounts.delete(creatorId, assertNetworkId(networkId)) };
  }

  async listActive(creatorId: string): Promise<NetworkAccountView[]> {
    return (await this.accounts.findActive(creatorId)).map(toView);
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
