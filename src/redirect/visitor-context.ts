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
  const knownCountry = isFromTrustedProxy ? supportedCountryOf(headers.country) : null;
  const exclusion = isHead
    ? 'head'
    : ua.isLinkPreview
      ? 'link_preview'
      : ua.isBot
        ? 'bot_user_agent'
        : isScoredBot
          ? 'bot_score'
          : null;
  if (knownCountry === null && ua.device === null) return edgeVisitorOf(null, exclusion);
  return edgeVisitorOf(
    internVisitor({
      country: knownCountry,
      device: ua.device ?? 'desktop',
      os: ua.os,
      isInAppBrowser: ua.isInAppBrowser,
    }),
    exclusion,
  );
}

/** Country header values seen, and the country each stands for (null: none we serve). */
const countryOfHeader = new Map<string, string | null>();
/** Headers come from a trusted proxy, but a bound keeps odd values from growing the map. */
const COUNTRY_HEADERS_KEPT = 1_000;

/** The edge's country header as a supported ISO code, looked up once per distinct value. */
function supportedCountryOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  let country = countryOfHeader.get(header);
  if (country === undefined) {
    const code = header.trim().toUpperCase();
    country = isSupportedCountry(code) ? code : null;
    if (countryOfHeader.size >= COUNTRY_HEADERS_KEPT) countryOfHeader.clear();
    countryOfHeader.set(header, country);
  }
  return country;
}

/**
 * Visitors share few contexts (countries x devices x operating systems x webview), so each
 * is one object for the process's life: the click router memoises a link's routes by that
 * object, with no key to build per click, and no click allocates one. At most a few
 * thousand exist (every field has a handful of values; countries are the supported list).
 */
const internedVisitors = new Map<string, VisitorContext>();
const isInterned = new WeakSet<VisitorContext>();

// The key above names every field of VisitorContext, so contexts that route differently never
// share an object: a field added to VisitorContext fails to compile here until it is keyed.
type InternKeyField = 'country' | 'device' | 'os' | 'isInAppBrowser';
const allFieldsKeyed: Exclude<keyof VisitorContext, InternKeyField> extends never ? true : never =
  true;
void allFieldsKeyed;

/** The one object with this visitor's content. */
export function internVisitor(visitor: VisitorContext): VisitorContext {
  if (isInterned.has(visitor)) return visitor;
  const key = `${visitor.country}|${visitor.device}|${visitor.os}|${visitor.isInAppBrowser}`;
  let interned = internedVisitors.get(key);
  if (interned === undefined) {
    interned = Object.freeze({ ...visitor });
    internedVisitors.set(key, interned);
    isInterned.add(interned);
  }
  return interned;
}

const edgeVisitors = new Map<VisitorContext | null, Map<EdgeVisitor['exclusion'], EdgeVisitor>>();

/** EdgeVisitor objects are shared too: an interned visitor and an exclusion. */
function edgeVisitorOf(
  visitor: VisitorContext | null,
  exclusion: EdgeVisitor['exclusion'],
): EdgeVisitor {
  let byExclusion = edgeVisitors.get(visitor);
  if (byExclusion === undefined) {
    byExclusion = new Map();
    edgeVisitors.set(visitor, byExclusion);
  }
  let edge = byExclusion.get(exclusion);
  if (edge === undefined) {
    edge = Object.freeze({ visitor, exclusion });
    byExclusion.set(exclusion, edge);
  }
  return edge;
}
