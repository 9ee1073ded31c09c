import { Injectable } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { isSupportedCountry } from '../common/countries';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { LinksService } from '../links/links.service';
import { MerchantsService } from '../merchants/merchants.service';
import type { VisitorContext } from '../routing/engine/routing-types';
import { LinkPreviewQuery, PREVIEW_DEVICES, PreviewDevice } from './dto/link-preview.query';
import {
  LinkPreviewEnvelope,
  LinkPreviewMarketsResponse,
  LinkPreviewResponse,
} from './link-preview.response';
import { RedirectHandler } from './redirect.handler';

/**
 * Link previews: what `/r/:id` does for a given visitor, answered by the redirect's own steps
 * (RedirectHandler.preview), for the caller's own links only. Counts no click, touches no
 * edge window; the API rate limit applies as to any call.
 */
@Injectable()
export class LinkPreviewService {
  constructor(
    private readonly links: LinksService,
    private readonly merchants: MerchantsService,
    private readonly handler: RedirectHandler,
  ) {}

  async preview(
    scope: RecordScope,
    linkId: string,
    country: string | null,
    device: PreviewDevice,
    ruleInputs: RuleInputs = {},
  ): Promise<LinkPreviewEnvelope> {
    const atMs = ruleInputs.at === undefined ? null : Date.parse(ruleInputs.at);
    if (Number.isNaN(atMs)) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, 'at is not a valid date-time.', {
        at: ['must be a valid ISO 8601 date-time'],
      });
    }
    const { link } = await this.links.get(scope, linkId);
    return { preview: await this.previewFor(link.linkId, country, device, ruleInputs, atMs) };
  }

  /** The matrix: the merchant's markets plus the link's own, times the three devices. */
  async markets(scope: RecordScope, linkId: string): Promise<LinkPreviewMarketsResponse> {
    const { link } = await this.links.get(scope, linkId);
    const merchant =
      link.merchantId === null ? null : this.merchants.knowledgeBase.find(link.merchantId);
    const markets = [
      ...new Set(
        [...Object.keys(merchant?.regions ?? {}), link.region ?? '']
          .map((market) => market.toUpperCase())
          .filter(isSupportedCountry),
      ),
    ].sort();
    const items: LinkPreviewMarketsResponse['items'] = [];
    for (const market of markets) {
      for (const device of PREVIEW_DEVICES) {
        const { crcTrace: _trace, ...preview } = await this.previewFor(link.linkId, market, device);
        items.push(preview);
      }
    }
    return { linkId: link.linkId, items };
  }

  private async previewFor(
    linkId: string,
    country: string | null,
    device: PreviewDevice,
    ruleInputs: RuleInputs = {},
    atMs: number | null = null,
  ): Promise<LinkPreviewResponse> {
    const answer = await this.handler.preview(linkId, visitorOf(country, device), {
      device,
      language: ruleInputs.language?.toLowerCase() ?? null,
      query: ruleInputs.visitorQuery ?? '',
      atMs,
    });
    if (answer === null) throw new AppError(ErrorCode.LINK_NOT_FOUND, `No link with id ${linkId}.`);
    const { route, trace, ruleIndex } = answer;
    return {
      country,
      device,
      location: route.url,
      outcome: route.outcome,
      region: route.region,
      networkId: route.networkId,
      normalizedEpcUsd: route.normalizedEpcUsd,
      confidence: route.confidence,
      ruleIndex,
      crcTrace: trace,
    };
  }
}

/** What a preview's redirect rules read besides country and device (LinkPreviewQuery). */
type RuleInputs = Pick<LinkPreviewQuery, 'language' | 'visitorQuery' | 'at'>;

/** The visitor the edge reads from a browser of this device in this country. */
function visitorOf(country: string | null, device: PreviewDevice): VisitorContext {
  return {
    country,
    device: device === 'desktop' ? 'desktop' : 'mobile',
    os: device === 'desktop' ? null : device,
    isInAppBrowser: false,
  };
}
