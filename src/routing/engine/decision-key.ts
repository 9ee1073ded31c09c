import { LRUCache } from 'lru-cache';
import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import { isPinActive } from './pick-winner';
import type { LinkRoutingInput, VisitorContext } from './routing-types';
import { visitorRoutingKey } from './visitor-routing-key';

/** How each field of one input of decideRoute shows in a key. */
type KeyParts<T> = {
  readonly [K in keyof Required<T>]: (value: T[K], tags: ContentTags) => string;
};

/** Tags standing for objects' contents (DecisionKeys): what the key parts of objects use. */
interface ContentTags {
  contentTag(value: object): string;
}

/**
 * Each field of the engine's link input and what stands for it in a decision key. Typed over
 * every field, so a new input of the engine does not compile until it says here how it tells
 * decisions apart (a forgotten input would serve stale routes from the memo).
 */
const LINK_PARTS: KeyParts<LinkRoutingInput> = {
  originalUrl: (url) => text(url),
  merchant: (merchant, tags) => (merchant === null ? '-' : tags.contentTag(merchant)),
  preset: (preset) => preset,
  category: (category) => category ?? '-',
  passthrough: (isPassthrough) => (isPassthrough ? 'p' : '-'),
  // Whether the pin still holds is the clock's part (clockKey).
  networkOverride: (pin) =>
    pin === undefined
      ? '-'
      : `${pin.networkId}@${pin.expiresAt === undefined ? '-' : text(pin.expiresAt)}`,
  probes: (probes) => `${probes.deepLinkStatus}:${probes.healthStatus}`,
  networkAccounts: (affiliateIds, tags) => tags.contentTag(affiliateIds),
  utmOverride: (utm, tags) => (utm === undefined ? '-' : tags.contentTag(utm)),
  // The creator's observations change a few times a minute at most: one tag per object.
  learning: (learning, tags) => (learning === undefined ? '-' : tags.contentTag(learning)),
};

/** The same for the visitor (the exact key; the shared one uses visitorRoutingKey). */
const VISITOR_PARTS: KeyParts<VisitorContext> = {
  country: (country) => (country === null ? '-' : text(country)),
  device: (device) => device,
  os: (os) => os ?? '-',
  isInAppBrowser: (isInAppBrowser) => (isInAppBrowser ? 'app' : '-'),
};

const LINK_FIELDS = Object.keys(LINK_PARTS) as (keyof LinkRoutingInput)[];
const VISITOR_FIELDS = Object.keys(VISITOR_PARTS) as (keyof VisitorContext)[];

/**
 * Decision keys: a string standing for everything `decideRoute(link, visitor, fx, nowMs)`
 * depends on (with no exploration lane: explored routes are memoised by their caller per
 * lane), so that a decision can be memoised under its key. Equal keys give equal decisions (a
 * property test holds this against decideRoute). Each argument has its part: the link's
 * fields and the visitor's one by one, the rates by content, the clock through the pin.
 *
 * An instance holds the tags it has handed out (per object, per content), so the engine keeps
 * no state of its own: its owner (the redirect's ClickRouter) decides how long they live, and
 * keys from two instances are never compared. Cheap on the redirect path when the caller
 * reuses its link input objects: the link's part is computed once per object (inputs are
 * never changed in place), the rest costs a few lookups.
 */
export class DecisionKeys implements ContentTags {
  private readonly linkTags = new WeakMap<LinkRoutingInput, string>();
  private readonly tagOfObject = new WeakMap<object, string>();
  /**
   * Contents (a link's routing input spelled out: hundreds of characters) and their tags.
   * Equal contents share a tag while both are here; the links clicked lately are, so 20,000 is
   * enough (100,000 held ~50 MiB in the million-link bench, where no two links share a content).
   */
  private readonly tagOfContent = new LRUCache<string, string>({ max: 20_000 });
  private nextTag = 0;

  /** The exact key: the visitor's every field. */
  exact(link: LinkRoutingInput, visitor: VisitorContext, fx: FxSnapshot, nowMs: number): string {
    const parts = [this.contentTag(fx), this.linkTag(link), clockKey(link, nowMs)];
    for (const field of VISITOR_FIELDS) parts.push(partOf(VISITOR_PARTS, visitor, field, this));
    // join writes one flat string; concatenation would leave a rope of ~9 string objects, and
    // memoised keys live long (a 200,000-key memo: ~100 MiB as ropes, ~20 MiB flat).
    return parts.join('|');
  }

  /**
   * The key with the visitor counted only through what of them the route depends on
   * (visitorRoutingKey): many countries share one key and one route (the trace's wording of
   * the market aside, which a click does not serve).
   */
  shared(link: LinkRoutingInput, visitor: VisitorContext, fx: FxSnapshot, nowMs: number): string {
    const visitorKey = visitorRoutingKey(link.merchant, link.originalUrl, visitor);
    // One flat string, as the exact key's.
    return [
      this.contentTag(fx),
      this.linkTag(link),
      clockKey(link, nowMs),
      `v${text(visitorKey)}`,
    ].join('|');
  }

  /**
   * A short tag for an object's content (a merchant profile, the FX rates, a creator's
   * affiliate ids), computed once per object: the caches hand these out unchanged until they
   * read them again. Objects with the same content share a tag, so a re-read with the same
   * values keeps its memoised decisions.
   */
  contentTag(value: object): string {
    let tag = this.tagOfObject.get(value);
    if (tag === undefined) {
      tag = this.internedTag(JSON.stringify(value));
      this.tagOfObject.set(value, tag);
    }
    return tag;
  }

  private linkTag(link: LinkRoutingInput): string {
    let tag = this.linkTags.get(link);
    if (tag === undefined) {
      tag = this.internedTag(
        LINK_FIELDS.map((field) => partOf(LINK_PARTS, link, field, this)).join('|'),
      );
      this.linkTags.set(link, tag);
    }
    return tag;
  }

  // Tags are never reused (the counter only grows, even when a content drops out of the
  // table), so a key can never be taken for another content's; a dropped content only costs a
  // miss.
  private internedTag(content: string): string {
    let tag = this.tagOfContent.get(content);
    if (tag === undefined) {
      tag = `#${(this.nextTag++).toString(36)}`;
      this.tagOfContent.set(content, tag);
    }
    return tag;
  }
}

// The clock matters to a decision only through the pin: whether it still holds.
function clockKey(link: LinkRoutingInput, nowMs: number): string {
  if (link.networkOverride === undefined) return '-';
  return isPinActive(link.networkOverride, nowMs) ? 'on' : 'off';
}

function partOf<T, K extends keyof T>(
  parts: KeyParts<T>,
  value: T,
  field: K,
  tags: ContentTags,
): string {
  return parts[field](value[field], tags);
}

// Free text is prefixed with its length, so it cannot run into the next part whatever it holds.
function text(value: string): string {
  return `${value.length}:${value}`;
}
