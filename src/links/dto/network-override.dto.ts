import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isNetworkId, NETWORK_IDS, NetworkId } from '../../networks/network-ids';
import type { NetworkOverride } from '../link.entity';

/** [S] CreateLinkRequest takes a NetworkId; the Link's object form is accepted too. */
export type NetworkOverrideInput = NetworkId | NetworkOverride;

const ALLOWED_KEYS = new Set(['networkId', 'expiresAt', 'reason']);

function describeProblem(value: unknown): string | null {
  if (typeof value === 'string') {
    return isNetworkId(value) ? null : `must be one of ${NETWORK_IDS.join(', ')}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be a network id or {networkId, expiresAt?, reason?}';
  }
  const record = value as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((key) => !ALLOWED_KEYS.has(key));
  if (unknownKey !== undefined) return `has an unknown field ${unknownKey}`;
  if (typeof record.networkId !== 'string' || !isNetworkId(record.networkId)) {
    return `networkId must be one of ${NETWORK_IDS.join(', ')}`;
  }
  if (record.expiresAt !== undefined) {
    const isIso =
      typeof record.expiresAt === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(
        record.expiresAt,
      ) &&
      !Number.isNaN(Date.parse(record.expiresAt));
    if (!isIso) return 'expiresAt must be an ISO 8601 date-time';
  }
  if (
    record.reason !== undefined &&
    (typeof record.reason !== 'string' || record.reason.length > 500)
  ) {
    return 'reason must be a string of at most 500 characters';
  }
  return null;
}

export function IsNetworkOverrideInput(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isNetworkOverrideInput',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => value === null || describeProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${describeProblem(args.value) ?? 'is invalid'}`,
      },
    });
}

/** The stored form of a validated input. */
export function toNetworkOverride(input: NetworkOverrideInput): NetworkOverride {
  return typeof input === 'string' ? { networkId: input } : { ...input };
}
