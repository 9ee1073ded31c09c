import { InvalidArgumentError } from 'commander';
import { PLAN_IDS, PlanId } from '../account/plan.entity';
import { KEY_ENVIRONMENTS, KeyEnvironment } from '../auth/api-key.entity';
import { describeAnalyticsDateProblem } from '../analytics/analytics-dates';
import { normaliseAllowlistEntry } from '../common/net/ip-allowlist';
import { ROUTING_MODES, type RoutingMode } from '../routing/engine/routing-types';

/** Option parsers: a bad argument stops the command with a message naming the option. */
export function parsePlan(value: string): PlanId {
  if (!(PLAN_IDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`Plan must be one of ${PLAN_IDS.join(', ')}.`);
  }
  return value as PlanId;
}

export function parseEnvironment(value: string): KeyEnvironment {
  if (!(KEY_ENVIRONMENTS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`Environment must be one of ${KEY_ENVIRONMENTS.join(', ')}.`);
  }
  return value as KeyEnvironment;
}

export function parseRoutingMode(value: string): RoutingMode {
  if (!(ROUTING_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`Routing mode must be one of ${ROUTING_MODES.join(', ')}.`);
  }
  return value as RoutingMode;
}

export function parseClickCount(value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) {
    throw new InvalidArgumentError('Included clicks must be a whole number from 0 to 2147483647.');
  }
  return Number(value);
}

export function parseEmail(value: string): string {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) || value.length > 320) {
    throw new InvalidArgumentError('Not an email address.');
  }
  return value;
}

/** Repeatable `--allow-ip`: collects single IPs and CIDR blocks. */
export function collectIp(value: string, previous: string[] = []): string[] {
  if (normaliseAllowlistEntry(value) === null) {
    throw new InvalidArgumentError(`${value} is not an IP address or CIDR block.`);
  }
  return [...previous, value];
}

/** A whole UTC day, `YYYY-MM-DD`, as the analytics API takes them. */
export function parseDay(value: string): string {
  const problem = describeAnalyticsDateProblem(value);
  if (problem !== null) throw new InvalidArgumentError(`The day ${problem}.`);
  return value;
}
