import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { RedirectRuleDto } from './dto/redirect-rule.dto';
import type { RoutingContext } from '../routing/routing.service';
import {
  type DestinationRouter,
  type DestinationSettings,
  type LinkDestination,
  routeDestination,
} from './link-destination';

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

type RuleConditions = Omit<StoredRedirectRule, 'destination'>;

/**
 * A link's validated rules as it stores them, each destination routed with the link's
 * settings; null for none (an empty list too). Every rule is checked before any is routed.
 */
export function toStoredRules(
  router: DestinationRouter,
  context: RoutingContext,
  rules: readonly RedirectRuleDto[] | null | undefined,
  settings: DestinationSettings,
): StoredRedirectRule[] | null {
  if (rules === null || rules === undefined || rules.length === 0) return null;
  const conditions = rules.map((rule, index) => toRuleConditions(rule, index));
  return rules.map((rule, index) => ({
    ...conditions[index],
    destination: routeDestination(router, context, rule.destinationUrl, settings),
  }));
}

/**
 * The conditions of a validated rule in stored form; refuses, naming `rules.<index>`, a rule
 * with no condition, half a daily window, or an empty window.
 */
export function toRuleConditions(rule: RedirectRuleDto, index: number): RuleConditions {
  const field = `rules.${index}`;
  const refuse = (name: string, problem: string): never => {
    throw new AppError(ErrorCode.VALIDATION_ERROR, `Invalid redirect rule ${index}: ${problem}.`, {
      [`${field}${name}`]: [problem],
    });
  };
  const conditions: RuleConditions = {};
  if (rule.countries !== undefined) conditions.countries = [...new Set(rule.countries)];
  if (rule.devices !== undefined) conditions.devices = [...new Set(rule.devices)];
  if (rule.languages !== undefined) {
    conditions.languages = [...new Set(rule.languages.map((language) => language.toLowerCase()))];
  }
  if (rule.startsAt !== undefined)
    conditions.startsAtMs = instantOf(rule.startsAt, refuse, 'startsAt');
  if (rule.endsAt !== undefined) conditions.endsAtMs = instantOf(rule.endsAt, refuse, 'endsAt');
  if (
    conditions.startsAtMs !== undefined &&
    conditions.endsAtMs !== undefined &&
    conditions.endsAtMs <= conditions.startsAtMs
  ) {
    refuse('.endsAt', 'endsAt must be after startsAt');
  }
  if ((rule.fromTime === undefined) !== (rule.toTime === undefined)) {
    refuse(
      rule.fromTime === undefined ? '.fromTime' : '.toTime',
      'fromTime and toTime go together',
    );
  }
  if (rule.fromTime !== undefined && rule.toTime !== undefined) {
    conditions.fromMinute = minuteOf(rule.fromTime);
    conditions.toMinute = minuteOf(rule.toTime);
    if (conditions.fromMinute === conditions.toMinute) {
      refuse('.toTime', 'toTime must differ from fromTime');
    }
  }
  if (rule.query !== undefined)
    conditions.query = { param: rule.query.param, value: rule.query.value };
  if (Object.keys(conditions).length === 0) {
    refuse('', 'a rule needs at least one condition');
  }
  return conditions;
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

function instantOf(
  text: string,
  refuse: (name: string, problem: string) => never,
  name: string,
): number {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? refuse(`.${name}`, `${name} must be a valid date-time`) : ms;
}

function minuteOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

function timeOfDay(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}
