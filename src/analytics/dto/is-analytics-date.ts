import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { describeAnalyticsDateProblem } from '../analytics-dates';

/** AnalyticsDate [S]: `YYYY-MM-DD` (pattern `^\d{4}-\d{2}-\d{2}$`) naming a day that exists. */
export function IsAnalyticsDate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isAnalyticsDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => describeAnalyticsDateProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${describeAnalyticsDateProblem(args.value) ?? 'is invalid'}`,
      },
    });
}
