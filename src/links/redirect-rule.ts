import type { LinkDestination } from './link-destination';

export const MAX_REDIRECT_RULES = 20;
export const RULE_DEVICES = ['ios', 'android', 'desktop'] as const;
export type RuleDevice = (typeof RULE_DEVICES)[number];

/**
 * One redirect rule as the link stores it (jsonb) and the edge reads it: conditions in the form
 * matching needs (instants in epoch ms, daily times in minutes of the UTC day, languages in
 * lower case), and the destination routed at write time. An absent condition always holds.
 */
export interface StoredRedirectRule {
  countries?: string[];
  devices?: RuleDevice[];
  languages?: string[];
  /** Inclusive. */
  startsAtMs?: number;
  /** Exclusive. */
  endsAtMs?: number;
  /** Minutes of the UTC day, inclusive; with toMinute. */
  fromMinute?: number;
  /** Exclusive; below fromMinute, the window spans midnight. */
  toMinute?: number;
  query?: { param: string; value: string };
  destination: LinkDestination;
}

/** A rule as the API shows it: its conditions as they were asked, and its destination's route. */
export interface RedirectRuleView {
  destinationUrl: string;
  countries?: string[];
  devices?: RuleDevice[];
  languages?: string[];
  startsAt?: string;
  endsAt?: string;
  fromTime?: string;
  toTime?: string;
  query?: { param: string; value: string };
  canonicalUrl: string;
  routedUrl: string;
  merchantId: string | null;
  networkId: string | null;
  region: string | null;
}

export function toRuleView(rule: StoredRedirectRule): RedirectRuleView {
  const { destination } = rule;
  return {
    destinationUrl: destination.originalUrl,
    ...(rule.countries ? { countries: rule.countries } : {}),
    ...(rule.devices ? { devices: rule.devices } : {}),
    ...(rule.languages ? { languages: rule.languages } : {}),
    ...(rule.startsAtMs !== undefined ? { startsAt: new Date(rule.startsAtMs).toISOString() } : {}),
    ...(rule.endsAtMs !== undefined ? { endsAt: new Date(rule.endsAtMs).toISOString() } : {}),
    ...(rule.fromMinute !== undefined ? { fromTime: timeOfDay(rule.fromMinute) } : {}),
    ...(rule.toMinute !== undefined ? { toTime: timeOfDay(rule.toMinute) } : {}),
    ...(rule.query ? { query: rule.query } : {}),
    canonicalUrl: destination.canonicalUrl,
    routedUrl: destination.stored.routedUrl,
    merchantId: destination.merchantId,
    networkId: destination.stored.networkId,
    region: destination.stored.region,
  };
}

function timeOfDay(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}
