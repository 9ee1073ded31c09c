import { ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { isSupportedCountry, UNSUPPORTED_COUNTRY_MESSAGE } from '../countries';

/** IsoAlpha2 [S]: `@Validate(IsSupportedCountry)`. */
@ValidatorConstraint({ name: 'isSupportedCountry' })
export class IsSupportedCountry implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isSupportedCountry(value);
  }

  defaultMessage(): string {
    return `$property ${UNSUPPORTED_COUNTRY_MESSAGE}`;
  }
}
