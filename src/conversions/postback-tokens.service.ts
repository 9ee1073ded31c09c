import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { RecordScope } from '../common/access/auth-context';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { PostbackTokenResponse } from './conversion.response';
import { PostbackTokensRepository } from './postback-tokens.repository';

const TOKEN_PREFIX = 'lp_pb_';
/** 32 bytes of randomness, base64url: 43 characters. */
const TOKEN_SHAPE = /^lp_pb_[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Postback tokens: one per creator and environment, a secret in the postback URL that names
 * whose conversions a network reports. Only the SHA-256 is stored, so the token is shown
 * once, when made; making a new one replaces the old at once (a network still using the old
 * one gets 401 POSTBACK_TOKEN_INVALID).
 */
@Injectable()
export class PostbackTokensService {
  constructor(
    private readonly tokens: PostbackTokensRepository,
    @InjectConfig('redirect') private readonly redirect: RedirectConfig,
  ) {}

  async rotate(scope: RecordScope): Promise<PostbackTokenResponse> {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    await this.tokens.replace({
      creatorId: scope.creatorId,
      environment: scope.environment,
      tokenHash: hashOf(token),
      createdAt: new Date(),
    });
    return {
      token,
      environment: scope.environment,
      postbackUrlTemplate: `${this.redirect.redirectBaseUrl}/postbacks/${token}/{networkId}`,
    };
  }

  /** The scope a token stands for; 401 POSTBACK_TOKEN_INVALID for any other string. */
  async scopeOf(token: string): Promise<RecordScope> {
    const row = TOKEN_SHAPE.test(token) ? await this.tokens.findByHash(hashOf(token)) : null;
    if (row === null) {
      throw new AppError(
        ErrorCode.POSTBACK_TOKEN_INVALID,
        'Unknown postback token: it was never issued or has been replaced. Make one with POST /v1/conversions/postback-token and update the postback URL at the network.',
      );
    }
    return { creatorId: row.creatorId, environment: row.environment };
  }
}
