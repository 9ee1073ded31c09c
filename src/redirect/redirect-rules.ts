import type { RuleDevice, StoredRedirectRule } from '../links/redirect-rule';
import type { UserAgentFacts } from './user-agent';

/** What a rule's conditions read of a visitor request (docs/redirect-rules.md). */
export interface RuleVisitor {
  /** From the trusted edge header; null when unknown. */
  country: string | null;
  device: RuleDevice | null;
  /** Primary subtag of the first Accept-Language entry, lower case (primaryLanguageOf). */
  language: string | null;
  /** The query string of `/r/:id?…`, without `?`; '' for none. */
  query: string;
  nowMs: number;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/**
 * The index of the first rule whose conditions all hold for the visitor; null when none does.
 * A condition on something unknown of the visitor (no country, no device) does not hold.
 */
export function matchingRuleIndex(
  rules: readonly StoredRedirectRule[],
  visitor: RuleVisitor,
): number | null {
  // Parsed only when a query condition is reached, once per request.
  let params: URLSearchParams | undefined;
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule.countries && (visitor.country === null || !rule.countries.includes(visitor.country))) {
      continue;
    }
    if (rule.devices && (visitor.device === null || !rule.devices.includes(visitor.device))) {
      continue;
    }
    if (
      rule.languages &&
      (visitor.language === null || !rule.languages.includes(visitor.language))
    ) {
      continue;
    }
    if (rule.startsAtMs !== undefined && visitor.nowMs < rule.startsAtMs) continue;
    if (rule.endsAtMs !== undefined && visitor.nowMs >= rule.endsAtMs) continue;
    if (rule.fromMinute !== undefined && rule.toMinute !== undefined) {
      if (!isWithinDailyWindow(minuteOfUtcDay(visitor.nowMs), rule.fromMinute, rule.toMinute)) {
        continue;
      }
    }
    if (rule.query) {
      params ??= new URLSearchParams(visitor.query);
      if (params.get(rule.query.param) !== rule.query.value) continue;
    }
    return index;
  }
  return null;
}

/** `from` inclusive, `to` exclusive; a window with `to` before `from` spans midnight. */
export function isWithinDailyWindow(minute: number, from: number, to: number): boolean {
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

function minuteOfUtcDay(nowMs: number): number {
  return Math.floor((((nowMs % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
}

/**
 * A rule's device for the edge's visitor: iOS and Android by the User-Agent's operating system
 * (phones and tablets alike), desktop by the device class; null for anything else (another
 * mobile OS, no User-Agent: the edge's routing assumes desktop then, a rule does not).
 */
export function ruleDeviceOf(userAgent: Pick<UserAgentFacts, 'device' | 'os'>): RuleDevice | null {
  if (userAgent.os !== null) return userAgent.os;
  return userAgent.device === 'desktop' ? 'desktop' : null;
}

/** `de-AT,de;q=0.9,en;q=0.5` -> `de`; null for none, `*` or anything not a language tag. */
export function primaryLanguageOf(acceptLanguage: string | undefined): string | null {
  if (acceptLanguage === undefined) return null;
  const first = acceptLanguage.split(',', 1)[0].split(';', 1)[0].trim();
  const primary = first.split('-', 1)[0].toLowerCase();
  return /^[a-z]{2,3}$/.test(primary) ? primary : null;
}
