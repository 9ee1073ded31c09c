import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { newUlid } from '../common/ids';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Clock } from '../common/clock';
import type { PlanEntity } from '../account/plan.entity';
import { KeyEnvironment } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';
import {
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
  isSameHash,
  parseApiKey,
} from './api-key-format';
import { AuthContext } from '../common/access/auth-context';
import { extractBearerKey } from './bearer-credentials';
import { isIpAllowed, normaliseAllowlistEntry } from '../common/net/ip-allowlist';

/** lastUsedAt is a dashboard hint: one write per key per minute is plenty. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedApiKey {
  keyId: string;
  /** Shown once; only its hash is stored. */
  apiKey: string;
  displayPrefix: string;
  environment: KeyEnvironment;
  ipAllowlist: string[];
  createdAt: string;
}

@Injectable()
export class ApiKeysService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly lastTouchedMs = new Map<string, number>();
  /** lastUsedAt writes not answered yet: shutdown waits for them, the pool closes after. */
  private readonly pendingTouches = new Set<Promise<void>>();

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Authenticates a request: the key, then the plan's API access, then the key's IP
   * allowlist. Reads the database on every call (one indexed join), so a revocation or a
   * plan change made with the CLI applies to the very next request.
   */
  async authenticate(authorization: string | undefined, clientIp: string): Promise<AuthContext> {
    const key = extractBearerKey(authorization);
    if (parseApiKey(key) === null) {
      throw new AppError(ErrorCode.UNAUTHORIZED, 'The API key is malformed.');
    }
    const keyHash = hashApiKey(key);
    const record = await this.apiKeys.findByHashWithPlan(keyHash);
    if (record === null || !isSameHash(record.keyHash, keyHash)) {
      throw new AppError(ErrorCode.UNAUTHORIZED, 'The API key is not recognised.');
    }
    if (record.revokedAt !== null) {
      throw new AppError(ErrorCode.UNAUTHORIZED, 'The API key has been revoked.');
    }
    const plan = record.creator?.plan;
    if (plan === undefined) throw new Error(`API key ${record.id} has no creator plan`);
    if (!plan.hasApiAccess) {
      throw new AppError(
        ErrorCode.PUBLISHER_TIER_REQUIRED,
        `API access needs the Publisher or Enterprise plan; this key's account is on ${plan.displayName}.`,
      );
    }
    if (record.environment === 'test' && !plan.hasTestKeys) {
      throw new AppError(
        ErrorCode.ENTERPRISE_TIER_REQUIRED,
        'Test keys work only for Enterprise accounts.',
      );
    }
    if (!isIpAllowed(clientIp, record.ipAllowlist)) {
      throw new AppError(
        ErrorCode.IP_NOT_ALLOWLISTED,
        `Requests from ${clientIp} are not allowed for this API key.`,
      );
    }
    this.touchLastUsed(record.id);
    return {
      keyId: record.id,
      creatorId: record.creatorId,
      environment: record.environment,
      plan,
    };
  }

  /** Issues a key; test keys and IP allowlists only where the creator's plan has them. */
  async issue(
    creatorId: string,
    plan: KeyPlanTerms,
    environment: KeyEnvironment,
    ipAllowlist: string[],
  ): Promise<IssuedApiKey> {
    const normalised = checkKeyOptions(plan, environment, ipAllowlist);
    const apiKey = generateApiKey(environment);
    const saved = await this.apiKeys.insert({
      id: newUlid(),
      creatorId,
      keyHash: hashApiKey(apiKey),
      displayPrefix: displayPrefixOf(apiKey),
      environment,
      ipAllowlist: normalised,
      lastUsedAt: null,
      revokedAt: null,
    });
    return {
      keyId: saved.id,
      apiKey,
      displayPrefix: saved.displayPrefix,
      environment,
      ipAllowlist: normalised,
      createdAt: saved.createdAt.toISOString(),
    };
  }

  /** Revokes a key; revoking twice keeps the first revocation time. */
  async revoke(keyId: string): Promise<{ keyId: string; revokedAt: string }> {
    const record = await this.apiKeys.findById(keyId);
    if (record === null) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, `No API key with id ${keyId}.`);
    }
    if (record.revokedAt === null) {
      record.revokedAt = new Date(this.clock.nowMs());
      await this.apiKeys.setRevokedAt(keyId, record.revokedAt);
    }
    return { keyId, revokedAt: record.revokedAt.toISOString() };
  }

  private touchLastUsed(keyId: string): void {
    const nowMs = this.clock.nowMs();
    if (nowMs - (this.lastTouchedMs.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastTouchedMs.set(keyId, nowMs);
    const touch = this.apiKeys
      .setLastUsedAt(keyId, new Date(nowMs))
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn(`Could not record last use of key ${keyId}: ${String(error)}`),
      )
      .finally(() => this.pendingTouches.delete(touch));
    this.pendingTouches.add(touch);
  }

  /** Lets the last lastUsedAt writes finish before the database pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.pendingTouches);
  }
}

/** What a plan row says about the keys its creators may hold. */
export type KeyPlanTerms = Pick<PlanEntity, 'hasTestKeys' | 'hasIpAllowlists'>;

/**
 * Refuses what the plan does not include (test keys, IP allowlists: Enterprise in the seeded
 * plans) and returns the normalised allowlist. Exported so a caller can check before it
 * creates anything.
 */
export function checkKeyOptions(
  plan: KeyPlanTerms,
  environment: KeyEnvironment,
  ipAllowlist: string[],
): string[] {
  if (environment === 'test' && !plan.hasTestKeys) {
    throw new AppError(
      ErrorCode.ENTERPRISE_TIER_REQUIRED,
      'Test keys can be issued to Enterprise creators only.',
    );
  }
  if (ipAllowlist.length > 0 && !plan.hasIpAllowlists) {
    throw new AppError(
      ErrorCode.ENTERPRISE_TIER_REQUIRED,
      'IP allowlists are an Enterprise feature.',
    );
  }
  return normaliseAllowlist(ipAllowlist);
}

function normaliseAllowlist(entries: string[]): string[] {
  const invalid = entries.filter((entry) => normaliseAllowlistEntry(entry) === null);
  if (invalid.length > 0) {
    throw new AppError(ErrorCode.VALIDATION_ERROR, 'Invalid IP allowlist entries.', {
      ipAllowlist: invalid.map((entry) => `${entry} is not an IP address or CIDR block`),
    });
  }
  return [...new Set(entries.map((entry) => normaliseAllowlistEntry(entry) as string))];
}
