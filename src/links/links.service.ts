import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { RecordScope } from '../common/access/auth-context';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { toValidationDetails } from '../common/errors/validation-details';
import { findMalformedText, toMalformedTextError } from '../common/validators/malformed-text';
import { DEFAULT_PAGE_SIZE, paginationMeta } from '../common/pagination';
import { InjectConfig } from '../config/config.module';
import { RedirectConfig } from '../config/env';
import { Clock } from '../common/clock';
import { RoutingService } from '../routing/routing.service';
import { BulkCreateLinksDto, MAX_BULK_LINKS } from './dto/bulk-create-links.dto';
import { CreateLinkDto } from './dto/create-link.dto';
import { ListLinksQuery } from './dto/list-links.query';
import { UpdateLinkDto } from './dto/update-link.dto';
import { LinkBuilderService } from './link-builder.service';
import { domainSlugOf, LinkBrandingService } from './link-branding.service';
import { LinkEntity } from './link.entity';
import { toLinkResponse, toLinkSummary } from './link.mapper';
import {
  BulkCreateLinksResponse,
  BulkFailureResponse,
  DeleteLinkResponse,
  LinkEnvelope,
  LinkListResponse,
} from './link.response';
import { LinkEditor } from './link-editor';
import { LinkLimitsService } from './link-limits.service';
import { LinksRepository } from './links.repository';
import { LinkEventsService } from './link-events.service';
import { LinkRoutingRecord, toLinkRoutingRecord } from './link-routing-record';
import { toStoredRules } from './redirect-rule-writer';

/** The same validation the global pipe applies to a body, for one bulk item at a time. */
const ITEM_VALIDATION = { whitelist: true, forbidNonWhitelisted: true };

@Injectable()
export class LinksService {
  constructor(
    @InjectConfig('redirect') private readonly redirect: RedirectConfig,
    private readonly links: LinksRepository,
    private readonly builder: LinkBuilderService,
    private readonly routing: RoutingService,
    private readonly events: LinkEventsService,
    private readonly clock: Clock,
    private readonly branding: LinkBrandingService,
    private readonly limits: LinkLimitsService,
  ) {}

  async create(scope: RecordScope, request: CreateLinkDto): Promise<LinkEnvelope> {
    const link = this.builder.build(
      scope,
      request,
      await this.routing.prepare(scope.creatorId, scope.environment),
    );
    await this.branding.applyOnCreate(scope, link, request);
    await this.insertAll([link]);
    this.events.created([link]);
    return { link: toLinkResponse(link, this.redirect.redirectBaseUrl) };
  }

  /** Each item stands alone: a bad or duplicate item fails without failing the others. */
  async createMany(
    scope: RecordScope,
    request: BulkCreateLinksDto,
  ): Promise<BulkCreateLinksResponse> {
    if (request.links.length === 0 || request.links.length > MAX_BULK_LINKS) {
      throw new AppError(
        ErrorCode.BULK_LIMIT_EXCEEDED,
        `A bulk request holds 1 to ${MAX_BULK_LINKS} links; this one has ${request.links.length}.`,
      );
    }
    const context = await this.routing.prepare(scope.creatorId, scope.environment);
    const firstIndexOfUrl = new Map<string, number>();
    const built: LinkEntity[] = [];
    const failed: BulkFailureResponse[] = [];
    const claimedSlugs = new Set<string>();
    for (const [index, item] of request.links.entries()) {
      const originalUrl = originalUrlOf(item);
      try {
        const dto = await validateItem(item);
        const firstIndex = firstIndexOfUrl.get(dto.originalUrl);
        if (firstIndex !== undefined) {
          throw new AppError(
            ErrorCode.VALIDATION_ERROR,
            `Duplicate originalUrl: item ${firstIndex} has it.`,
            {
              originalUrl: [`duplicates item ${firstIndex} of this request`],
            },
          );
        }
        const link = this.builder.build(scope, dto, context);
        await this.branding.applyOnCreate(scope, link, dto, claimedSlugs);
        built.push(link);
        // Only a created item claims its URL: a failed one (invalid or refused) leaves it free.
        firstIndexOfUrl.set(dto.originalUrl, index);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        failed.push({
          index,
          originalUrl,
          error: {
            code: error.code,
            message: error.message,
            ...(error.details ? { details: error.details } : {}),
          },
        });
      }
    }
    await this.insertAll(built);
    this.events.created(built);
    return {
      created: built.map((link) => toLinkResponse(link, this.redirect.redirectBaseUrl)),
      failed,
      totalRequested: request.links.length,
      totalCreated: built.length,
      totalFailed: failed.length,
    };
  }

  async list(scope: RecordScope, query: ListLinksQuery): Promise<LinkListResponse> {
    const page = query.page ?? 1;
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { links, total } = await this.links.listLiveInScope(scope, query, page, limit);
    return {
      items: links.map((link) => toLinkSummary(link, this.redirect.redirectBaseUrl)),
      pagination: paginationMeta(page, limit, total),
    };
  }

  async get(scope: RecordScope, linkId: string): Promise<LinkEnvelope> {
    const link = await this.findOrThrow(scope, linkId);
    return { link: toLinkResponse(link, this.redirect.redirectBaseUrl) };
  }

  async update(scope: RecordScope, linkId: string, changes: UpdateLinkDto): Promise<LinkEnvelope> {
    const link = await this.findOrThrow(scope, linkId);
    const merchant = link.merchantId === null ? null : this.routing.merchantOf(link.originalUrl);
    const slugBefore = domainSlugOf(link);
    await this.branding.applyOnUpdate(scope, link, changes);
    new LinkEditor(link, merchant, this.clock.nowMs()).apply(changes);
    if (changes.rules !== undefined) {
      // Replaces the list, routed with the link's settings as this edit leaves them.
      const context = await this.routing.prepare(scope.creatorId, scope.environment);
      link.rules = toStoredRules(this.routing, context, changes.rules, link);
    }
    const startsCapping = await this.limits.apply(scope, link, changes);
    const saved = await this.links.save(link).catch((error: unknown) => {
      throw this.branding.toSlugTaken(error);
    });
    if (startsCapping) await this.limits.restartCount(saved);
    await this.events.changed(saved);
    await this.branding.changed(slugBefore, domainSlugOf(saved));
    return { link: toLinkResponse(saved, this.redirect.redirectBaseUrl) };
  }

  async remove(scope: RecordScope, linkId: string): Promise<DeleteLinkResponse> {
    const link = await this.findOrThrow(scope, linkId);
    link.deletedAt = new Date(this.clock.nowMs());
    await this.links.save(link);
    await this.events.changed(link);
    await this.branding.changed(domainSlugOf(link), null);
    return { linkId: link.id, deleted: true };
  }

  /**
   * What the edge needs to route clicks on these live links, by id; an unknown or deleted link
   * has none. Ids are the canonical spelling (normaliseLinkId): the edge normalises before its
   * caches.
   */
  async findRoutingRecords(linkIds: readonly string[]): Promise<Map<string, LinkRoutingRecord>> {
    const links = await this.links.findLiveRoutingFields(linkIds);
    return new Map(links.map((link) => [link.id, toLinkRoutingRecord(link)]));
  }

  /**
   * Removes the scope's test links for good (the sandbox reset) and evicts them from the
   * edge's caches; answers how many there were.
   */
  async purgeTestLinks(scope: RecordScope): Promise<number> {
    const linkIds = await this.links.purgeTestScope(scope);
    await Promise.all(linkIds.map((linkId) => this.events.changedById(linkId)));
    return linkIds.length;
  }

  /** A slug taken by a concurrent request between the check and the insert is 409 too. */
  private async insertAll(links: LinkEntity[]): Promise<void> {
    await this.links.insertAll(links).catch((error: unknown) => {
      throw this.branding.toSlugTaken(error);
    });
  }

  private async findOrThrow(scope: RecordScope, linkId: string): Promise<LinkEntity> {
    const link = await this.links.findLiveInScope(scope, linkId);
    if (link === null) throw new AppError(ErrorCode.LINK_NOT_FOUND, `No link with id ${linkId}.`);
    return link;
  }
}

/**
 * The item's originalUrl as its failure echoes it; a lone surrogate as U+FFFD, since strict
 * JSON parsers refuse the whole 207 over one `\ud800` escape (nothing of it is stored).
 */
function originalUrlOf(item: unknown): string | null {
  const value = (item as { originalUrl?: unknown } | null)?.originalUrl;
  return typeof value === 'string' ? value.toWellFormed() : null;
}

async function validateItem(item: unknown): Promise<CreateLinkDto> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new AppError(
      ErrorCode.VALIDATION_ERROR,
      'Each bulk item must be a create-link request object.',
      { body: ['must be a create-link request object'] },
    );
  }
  // The global text rule, for this item alone (BulkCreateLinksDto leaves items to it).
  const malformed = findMalformedText(item, { isNulRefused: true });
  if (malformed !== null) throw toMalformedTextError(malformed, 'link', 'body');
  const dto = plainToInstance(CreateLinkDto, item);
  const errors = await validate(dto, ITEM_VALIDATION);
  if (errors.length > 0) {
    const details = toValidationDetails(errors);
    throw new AppError(
      ErrorCode.VALIDATION_ERROR,
      `Invalid link: ${Object.keys(details).join(', ')}.`,
      details,
    );
  }
  return dto;
}
