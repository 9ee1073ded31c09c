import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * ISO 8601 in its extended form with a four-digit year: a date, or a date-time with an
 * optional offset. class-validator's IsISO8601 also takes the basic form (`20260301`), which
 * Date cannot parse; an Invalid Date must never reach a query.
 */
const EXTENDED_ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function isIsoDateTime(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    EXTENDED_ISO_8601.test(value) &&
    !Number.isNaN(Date.parse(value)) &&
    // Date rolls over impossible days (2026-02-30 -> March 2); the calendar date must exist.
    new Date(`${value.slice(0, 10)}T00:00:00Z`).toISOString().slice(0, 10) === value.slice(0, 10)
  );
}

/** An ISO 8601 date-time (extended form) that names a real instant. */
export function IsIsoDateTime(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isIsoDateTime',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => isIsoDateTime(value),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be an ISO 8601 date-time such as 2026-03-01T00:00:00Z`,
      },
    });
}
