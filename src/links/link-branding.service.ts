import { Injectable } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { isUniqueViolation } from '../common/errors/unique-violation';
import { DomainEvictionsService, DomainSlug } from '../domains/domain-evictions.service';
import { DomainsService } from '../domains/domains.service';
import type { LinkEntity } from './link.entity';
import { LinksRepository } from './links.repository';

/** The unique index of a domain's live slugs (migration 1764700000000). */
const SLUG_INDEX = 'links_domain_slug';

/** What a request asks of a link's branding: absent fields keep the link's. */
interface BrandingRequest {
  domain?: string | null;
  slug?: string | null;
}

/** A link's place on a branded domain, or null for none. */
type Branding = Pick<LinkEntity, 'domainId' | 'domainHostname' | 'slug'>;

const NO_BRANDING: Branding = { domainId: null, domainHostname: null, slug: null };

/**
 * A link's branded domain and vanity slug (docs/domains.md): checked on create, bulk and
 * PATCH (a verified domain of the scope, a slug free on it), and the edge's slug cache
 * evicted when they change.
 */
@Injectable()
export class LinkBrandingService {
  constructor(
    private readonly domains: DomainsService,
    private readonly evictions: DomainEvictionsService,
    private readonly links: LinksRepository,
  ) {}

  /**
   * Sets the branding a create request asks for on the new link; `claimed` holds the slugs of
   * the links built before it in the same request (bulk), which a later one cannot take.
   */
  async applyOnCreate(
    scope: RecordScope,
    link: LinkEntity,
    request: BrandingRequest,
    claimed = new Set<string>(),
  ): Promise<void> {
    Object.assign(link, NO_BRANDING);
    if (request.domain === undefined && request.slug === undefined) return;
    const branding = await this.resolve(scope, request.domain ?? null, request.slug ?? null);
    const key = `${branding.domainId}:${branding.slug}`;
    if (claimed.has(key)) throw slugTaken(branding);
    await this.assertSlugFree(branding, null);
    claimed.add(key);
    Object.assign(link, branding);
  }

  /**
   * Applies PATCH's `domain` and `slug`: either may change alone (a new slug on the same domain,
   * the same slug on another), and null on either takes the link off its domain.
   */
  async applyOnUpdate(
    scope: RecordScope,
    link: LinkEntity,
    request: BrandingRequest,
  ): Promise<void> {
    if (request.domain === undefined && request.slug === undefined) return;
    if (request.domain === null || request.slug === null) {
      Object.assign(link, NO_BRANDING);
      return;
    }
    const branding = await this.resolve(
      scope,
      request.domain ?? link.domainHostname,
      request.slug ?? link.slug,
    );
    if (branding.domainId !== link.domainId || branding.slug !== link.slug) {
      await this.assertSlugFree(branding, link.id);
    }
    Object.assign(link, branding);
  }

  /** The edge's resolutions of the slugs before and after a change (or a deletion). */
  async changed(before: DomainSlug | null, after: DomainSlug | null): Promise<void> {
    const slugs = [before, after].filter((slug): slug is DomainSlug => slug !== null);
    if (before?.domainId === after?.domainId && before?.slug === after?.slug) return;
    await this.evictions.slugsChanged(slugs);
  }

  /** Whether `error` is a slug taken by a concurrent request, as 409 SLUG_TAKEN. */
  toSlugTaken(error: unknown): unknown {
    return isUniqueViolation(error, SLUG_INDEX)
      ? new AppError(ErrorCode.SLUG_TAKEN, 'The slug was taken by another link meanwhile.')
      : error;
  }

  private async resolve(
    scope: RecordScope,
    hostname: string | null,
    slug: string | null,
  ): Promise<Branding> {
    if (hostname === null || slug === null) {
      const missing = hostname === null ? 'domain' : 'slug';
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'A branded link needs both domain and slug.', {
        [missing]: [`${missing} is required with ${missing === 'domain' ? 'slug' : 'domain'}`],
      });
    }
    const domain = await this.domains.findVerifiedForLink(scope, hostname);
    if (domain === null) {
      throw new AppError(
        ErrorCode.VALIDATION_ERROR,
        `${hostname} is not a verified domain of this account and environment.`,
        { domain: ['domain must be a verified domain of yours (POST /v1/domains)'] },
      );
    }
    return { domainId: domain.id, domainHostname: domain.hostname, slug };
  }

  private async assertSlugFree(branding: Branding, exceptLinkId: string | null): Promise<void> {
    const holder = await this.links.findLiveIdBySlug(
      branding.domainId as string,
      branding.slug as string,
    );
    if (holder !== null && holder !== exceptLinkId) throw slugTaken(branding);
  }
}

/** The slug of a link, as the edge caches it. */
export const domainSlugOf = (link: LinkEntity): DomainSlug | null =>
  link.domainId === null || link.slug === null
    ? null
    : { domainId: link.domainId, slug: link.slug };

const slugTaken = (branding: Branding): AppError =>
  new AppError(
    ErrorCode.SLUG_TAKEN,
    `${branding.domainHostname}/${branding.slug} is the slug of another live link.`,
    { slug: ['slug is taken on this domain'] },
  );
