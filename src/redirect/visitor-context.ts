import { isSupportedCountry } from '../common/countries';
import type { VisitorContext } from '../routing/engine/routing-types';
import { userAgentFacts } from './user-agent';

/** Below this edge bot score a request is a bot; 0 is "not scored" (docs/design.md section 5). */
export const BOT_SCORE_THRESHOLD = 30;

export interface EdgeHeaders {
  userAgent: string | undefined;
  country: string | undefined;
  botScore: string | undefined;
}

export interface EdgeVisitor {
  /** Null when nothing about the visitor is known: then the link's stored route is served. */
  visitor: VisitorContext | null;
  /**
   * Bots, link previews and HEAD requests are served the original URL and never counted:
   * why (the excluded-hit ledger's reason); null for a visitor.
   */
  exclusion: 'head' | 'link_preview' | 'bot_user_agent' | 'bot_score' | null;
}

/**
 * The visitor as the edge headers describe them. Country and bot score are believed only when
 * the request came through a trusted proxy; the User-Agent is the visitor's own.
 */
export function readVisitor(
  headers: EdgeHeaders,
  isFromTrustedProxy: boolean,
  isHead: boolean,
): EdgeVisitor {
  const ua = userAgentFacts(headers.userAgent);
  const botScore = isFromTrustedProxy ? Number(headers.botScore) : NaN;
  const isScoredBot = Number.isFinite(botScore) && botScore > 0 && botScore < BOT_SCORE_THRESHOLD;
  const country = isFromTrustedProxy ? headers.country?.trim().toUpperCase() : undefined;
  const knownCountry = country !== undefined && isSupportedCountry(country) ? country : null;
  const exclusion = isHead
    ? 'head'
    : ua.isLinkPreview
      ? 'link_preview'
      : ua.isBot
        ? 'bot_user_agent'
        : isScoredBot
          ? 'bot_score'
          : null;
  if (knownCountry === null && ua.device === null) return { visitor: null, exclusion };
  return {
    visitor: {
      country: knownCountry,
      device: ua.device ?? 'desktop',
      os: ua.os,
      isInAppBrowser: ua.isInAppBrowser,
    },
    exclusion,
  };
}
