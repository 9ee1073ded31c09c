import { Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { AccountSettingsEnvelope } from './account-settings.response';
import { CreatorsRepository } from './creators.repository';
import { UpdateSettingsDto } from './dto/update-settings.dto';

/**
 * A creator's settings. A change reaches the edge about a second later through the
 * edge-profile change log, which the `creators` trigger writes (migration
 * Conversions1764560000000 added `attribution` to the columns it compares).
 */
@Injectable()
export class AccountSettingsService {
  constructor(private readonly creators: CreatorsRepository) {}

  async update(creatorId: string, changes: UpdateSettingsDto): Promise<AccountSettingsEnvelope> {
    if (changes.attribution === undefined && changes.routingMode === undefined) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'Send at least one setting to change.', {
        body: ['must contain at least one setting'],
      });
    }
    await this.creators.updateAccountSettings(creatorId, {
      attribution: changes.attribution,
      routingMode: changes.routingMode,
    });
    return this.get(creatorId);
  }

  async get(creatorId: string): Promise<AccountSettingsEnvelope> {
    const creator = await this.creators.findWithPlan(creatorId);
    if (creator === null) {
      throw new AppError(ErrorCode.CREATOR_NOT_FOUND, `Creator ${creatorId} not found.`);
    }
    return { settings: { attribution: creator.attribution, routingMode: creator.routingMode } };
  }
}
