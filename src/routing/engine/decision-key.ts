import { LRUCache } from 'lru-cache';
import type { FxSnapshot } from '../../fx/math/fx-snapshot';
import { isPinActive } from './pick-winner';
import type { LinkRoutingInput, VisitorContext } from './routing-types';
import { visitorRoutingKey } from './visitor-routing-key';

/** How each field of one input of decideRoute shows in a key. */
type KeyParts<T> = { readonly [K in keyof Required<T>]: (value: T[K]) => string };

/**
 * Each field of the engine's link input and what stands for it in a decision key. Typed over
 * every field, so a new input of the engine does not compile until it says here how it tells
 * decisions apart (a forgotten input would serve stale routes from the memo).
 */
const LINK_PARTS: KeyParts<LinkRoutingInput> = {
  originalUrl: (url) => text(url),
  merchant: (merchant) => (merchant === null ? '-' : contentTag(merchant)),
  preset: (preset) => preset,
  category: (category) => category ?? '-',
  passthrough: (isPassthrough) => (isPassthrough ? 'p' : '-'),
  // Whether the pin still holds is the clock's part (clockKey).
  networkOverride: (pin) =>
    pin === undefined
      ? '-'
      : `${pin.networkId}@${pin.expiresAt === undefined ? '-' : text(pin.expiresAt)}`,
  probes: (probes) => `${probes.deepLinkStatus}:${probes.healthStatus}`,
  networkAccounts: (affiliateIds) => contentTag(affiliateIds),
  utmOverride: (utm) => (utm === undefined ? '-' : contentTag(utm)),
  // The creator's observations change a few times a minute at most: one tag per object.
  learning: (learning) => (learning === undefined ? '-' : contentTag(learning)),
};

/** The same for the visitor (the exact key; sharedDecisionKey uses visitorRoutingKey). */
const VISITOR_PARTS: KeyParts<VisitorContext> = {
  country: (country) => (country === null ? '-' : text(country)),
  device: (device) => device,
  os: (os) => os ?? '-',
  isInAppBrowser: (isInAppBrowser) => (isInAppBrowser ? 'app' : '-'),
};

const LINK_FIELDS = Object.keys(LINK_PARTS) as (keyof LinkRoutingInput)[];
const VISITOR_FIELDS = Object.keys(VISITOR_PARTS) as (keyof VisitorContext)[];

/**
 * A string standing for everything `decideRoute(link, visitor, fx, nowMs)` depends on (with no
 * exploration lane: explored routes are memoised by their caller per lane), taking the same
 * arguments: equal keys give equal decisions (a property test holds this against
 * decideRoute), so a decision can be memoised under its key. Each argument has its part: the
 * link's fields and the visitor's one by one, the rates by content, the clock through the pin.
 *
 * Cheap on the redirect path when the caller reuses its link input objects: the link's part is
 * computed once per object (inputs are never changed in place), the rest costs a few lookups.
 */
export function decisionKey(
  link: LinkRoutingInput,
  visitor: VisitorContext,
  fx: FxSnapshot,
  nowMs: number,
): string {
  const parts = [contentTag(fx), linkTag(link), clockKey(link, nowMs)];
  for (const field of VISITOR_FIELDS) parts.push(partOf(VISITOR_PARTS, visitor, field));
  // join writes one flat string; concatenation would leave a rope of ~9 string objects, and
  // memoised keys live long (a 200,000-key memo: ~100 MiB as ropes, ~20 MiB flat).
  return parts.join('|');
}

/**
 * decisionKey with the visitor counted only through what of them the route depends on
 * (visitorRoutingKey): many countries share one key and one route (the trace's wording of the
 * market aside, which a click does not serve).
 */
export function sharedDecisionKey(
  link: LinkRoutingInput,
  visitor: VisitorContext,
  fx: FxSnapshot,
  nowMs: number,
): string {
  const visitorKey = visitorRoutingKey(link.merchant, link.originalUrl, visitor);
  // One flat string, as decisionKey's.
  return [contentTag(fx), linkTag(link), clockKey(link, nowMs), `v${text(visitorKey)}`].join('|');
}

// The clock matters to a decision only through the pin: whether it still holds.
function clockKey(link: LinkRoutingInput, nowMs: number): string {
  if (link.networkOverride === undefined) return '-';
  return isPinActive(link.networkOverride, nowMs) ? 'on' : 'off';
}

const linkTags = new WeakMap<LinkRoutingInput, string>();

function linkTag(link: LinkRoutingInput): string {
  let tag = linkTags.get(link);
  if (tag === undefined) {
    tag = internedTag(LINK_FIELDS.map((field) => partOf(LINK_PARTS, link, field)).join('|'));
    linkTags.set(link, tag);
  }
  return tag;
}

function partOf<T, K extends keyof T>(parts: KeyParts<T>, value: T, field: K): string {
  return parts[field](value[field]);
}

// Free text is prefixed with its length, so it cannot run into the next part whatever it holds.
function text(value: string): string {
  return `${value.length}:${value}`;
}

const tagOfObject = new WeakMap<object, string>();

/**
 * A short tag for an object's content (a merchant profile, the FX rates, a creator's affiliate
 * ids), computed once per object: the caches hand these out unchanged until they read them
 * again. Objects with the same content share a tag, so a re-read with the same values keeps
 * its memoised decisions.
 */
function contentTag(value: object): string {
  let tag = tagOfObject.get(value);
  if (tag === undefined) {
    tag = internedTag(JSON.stringify(value));
    tagOfObject.set(value, tag);
  }
  return tag;
}

/**
 * Contents (a link's routing input spelled out: hundreds of characters) and their tags. Equal
 * contents share a tag while both are here; the links clicked lately are, so 20,000 is enough
 * (100,000 held ~50 MiB in the million-link bench, where no two links share a content).
 */
const tagOfContent = new LRUCache<string, string>({ max: 20_000 });
let nextTag = 0;

// Tags are never reused (the counter only grows, even when a content drops out of the table),
// so a key can never be taken for another content's; a dropped content only costs a miss.
function internedTag(content: string): string {
  let tag = tagOfContent.get(content);
  if (tag === undefined) {
    tag = `#${(nextTag++).toString(36)}`;
    tagOfContent.set(content, tag);
  }
  return tag;
}
