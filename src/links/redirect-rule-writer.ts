import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { RoutingContext } from '../routing/routing.service';
import type { RedirectRuleDto } from './dto/redirect-rule.dto';
import {
  type DestinationRouter,
  type DestinationSettings,
  routeDestination,
} from './link-destination';
import type { StoredRedirectRule } from './redirect-rule';

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
function toRuleConditions(rule: RedirectRuleDto, index: number): RuleConditions {
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
