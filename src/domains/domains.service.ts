import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AuthContext, RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { isUniqueViolation } from '../common/errors/unique-violation';
import { newUlid } from '../common/ids';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { DnsChallenge } from './dns-challenge';
import { domainsAllowedOn } from './domain-limits';
import { DomainEvictionsService } from './domain-evictions.service';
import { toDomainResponse } from './domain.mapper';
import { DeleteDomainResponse, DomainEnvelope, DomainListResponse } from './domain.response';
import { DomainRecord, DomainsRepository } from './domains.repository';
import type { VerifiedHost } from './verified-host';
import { CreateDomainDto } from './dto/create-domain.dto';
import { checkHostname } from './hostname-rules';

/** The scheduled check looks for the record this long after a domain is added, then stops. */
const PENDING_CHECK_DAYS = 7;
/** Domains checked per scheduled run, least recently checked first. */
const PENDING_CHECK_BATCH = 100;

/** A verified domain of a scope, as a link takes it. */
export interface LinkDomain {
  id: string;
  hostname: string;
}

/**
 * Branded domains: added per account and key environment within the plan's count, verified
 * by the DNS challenge (on request and by the scheduled job), and removed. A hostname is the
 * account's that verifies it first; until then several may claim it.
 */
@Injectable()
export class DomainsService {
  private readonly logger = new Logger(DomainsService.name);
  /** The service's own hosts, which no account may claim. */
  private readonly ownHosts: string[];

  constructor(
    @InjectConfig('redirect') redirect: RedirectConfig,
    private readonly domains: DomainsRepository,
    private readonly challenge: DnsChallenge,
    private readonly evictions: DomainEvictionsService,
    private readonly clock: Clock,
  ) {
    this.ownHosts = [new URL(redirect.redirectBaseUrl).hostname];
  }

  async create(caller: AuthContext, body: CreateDomainDto): Promise<DomainEnvelope> {
    const allowed = domainsAllowedOn(caller.plan.id);
    if (allowed === 0) {
      throw new AppError(
        ErrorCode.PLAN_UPGRADE_REQUIRED,
        `Branded domains need the Pro plan or above; this account is on ${caller.plan.displayName}.`,
      );
    }
    const hostname = this.hostnameOrThrow(body.hostname);
    if (await this.domains.isVerifiedElsewhere(hostname, null)) {
      throw new AppError(ErrorCode.DOMAIN_TAKEN, `${hostname} is verified by another account.`);
    }
    const nowMs = this.clock.nowMs();
    const record = await this.domains
      .insertWithinLimit(
        {
          id: newUlid(nowMs),
          creatorId: caller.creatorId,
          environment: caller.environment,
          hostname,
          notFoundUrl: body.notFoundUrl ?? null,
          verificationToken: `lp-verify-${randomBytes(16).toString('hex')}`,
          createdAt: new Date(nowMs),
        },
        allowed,
      )
      .catch((error: unknown) => {
        if (isUniqueViolation(error, 'domains_scope_hostname')) {
          throw new AppError(ErrorCode.DOMAIN_TAKEN, `${hostname} is one of your domains already.`);
        }
        throw error;
      });
    if (record === null) {
      throw new AppError(
        ErrorCode.DOMAIN_LIMIT_REACHED,
        `The ${caller.plan.displayName} plan has at most ${allowed} branded domains per account and environment.`,
      );
    }
    return { domain: toDomainResponse(record) };
  }

  async list(scope: RecordScope): Promise<DomainListResponse> {
    const records = await this.domains.findAllInScope(scope);
    return { items: records.map(toDomainResponse) };
  }

  async get(scope: RecordScope, id: string): Promise<DomainEnvelope> {
    return { domain: toDomainResponse(await this.findOrThrow(scope, id)) };
  }

  async remove(scope: RecordScope, id: string): Promise<DeleteDomainResponse> {
    const domain = await this.findOrThrow(scope, id);
    const detached = await this.domains.remove(domain.id);
    if (domain.verifiedAt !== null) await this.evictions.hostsChanged();
    return { id: domain.id, deleted: true, linksDetached: detached.length };
  }

  /** Checks the DNS challenge now; a hostname another account verified first is 409. */
  async verify(scope: RecordScope, id: string): Promise<DomainEnvelope> {
    const domain = await this.findOrThrow(scope, id);
    return { domain: toDomainResponse(await this.check(domain)) };
  }

  /** The scheduled check: recent unverified domains, least recently checked first. */
  async verifyPending(): Promise<number> {
    const since = new Date(this.clock.nowMs() - PENDING_CHECK_DAYS * 86_400_000);
    let verified = 0;
    for (const domain of await this.domains.findPendingSince(since, PENDING_CHECK_BATCH)) {
      try {
        if ((await this.check(domain)).verifiedAt !== null) verified += 1;
      } catch (error) {
        this.logger.warn(`Domain ${domain.hostname} not verified: ${String(error)}`);
      }
    }
    return verified;
  }

  /** The scope's verified domain of this hostname (any spelling), for a link to take. */
  async findVerifiedForLink(scope: RecordScope, input: string): Promise<LinkDomain | null> {
    const check = checkHostname(input, []);
    if ('problem' in check) return null;
    const domain = await this.domains.findVerifiedInScope(scope, check.hostname);
    return domain === null ? null : { id: domain.id, hostname: domain.hostname };
  }

  /** Whether the edge serves this hostname (the TLS terminator's question). */
  isServed(hostname: string): Promise<boolean> {
    const check = checkHostname(hostname, this.ownHosts);
    return 'problem' in check ? Promise.resolve(false) : this.domains.isVerified(check.hostname);
  }

  /** Every verified domain, for the edge. */
  findAllVerified(): Promise<VerifiedHost[]> {
    return this.domains.findAllVerified();
  }

  /** The live link of this slug on the domain, for the edge. */
  findLinkIdBySlug(domainId: string, slug: string): Promise<string | null> {
    return this.domains.findLinkIdBySlug(domainId, slug);
  }

  private async check(domain: DomainRecord): Promise<DomainRecord> {
    if (domain.verifiedAt !== null) return domain;
    const outcome = await this.challenge.check(domain.hostname, domain.verificationToken);
    const at = new Date(this.clock.nowMs());
    try {
      const checked = await this.domains.recordCheck(domain.id, outcome, at);
      if (checked.verifiedAt !== null) await this.evictions.hostsChanged();
      return checked;
    } catch (error) {
      if (!isUniqueViolation(error, 'domains_verified_hostname')) throw error;
      await this.domains.recordCheck(
        domain.id,
        { isVerified: false, error: 'Verified by another account first' },
        at,
      );
      throw new AppError(
        ErrorCode.DOMAIN_TAKEN,
        `${domain.hostname} is verified by another account.`,
      );
    }
  }

  private hostnameOrThrow(input: string): string {
    const check = checkHostname(input, this.ownHosts);
    if ('problem' in check) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, `hostname ${check.problem}.`, {
        hostname: [`hostname ${check.problem}`],
      });
    }
    return check.hostname;
  }

  private async findOrThrow(scope: RecordScope, id: string): Promise<DomainRecord> {
    const domain = /^[0-9A-Za-z]{1,64}$/.test(id)
      ? await this.domains.findInScope(scope, id.toUpperCase())
      : null;
    if (domain === null) throw new AppError(ErrorCode.DOMAIN_NOT_FOUND, `No domain with id ${id}.`);
    return domain;
  }
}
