import { ValidationError } from 'class-validator';
import { ErrorDetails } from './app-error';

/**
 * Flattens class-validator errors into the [S] `details` map. Nested fields are named by
 * their path (`utmOverride.utm_source`, `links.3.originalUrl`) so a client can point at them.
 */
export function toValidationDetails(errors: ValidationError[], parentPath = ''): ErrorDetails {
  const details: ErrorDetails = {};
  for (const error of errors) {
    const field = parentPath === '' ? error.property : `${parentPath}.${error.property}`;
    const messages = Object.entries(error.constraints ?? {}).map(([constraint, message]) =>
      constraint === 'whitelistValidation' ? describeUnknownField(error.property) : message,
    );
    // One message per field and wording: shared messages (say, "from 1 to 100" on IsInt, Min
    // and Max) are said once.
    if (messages.length > 0)
      details[field] = [...new Set([...(details[field] ?? []), ...messages])];
    if (error.children && error.children.length > 0) {
      Object.assign(details, toValidationDetails(error.children, field));
    }
  }
  return details;
}

/** [G] spellings of request fields, refused with the [S] name to use (docs/design.md section 2). */
const S_FIELD_FOR_G_FIELD: Record<string, string> = {
  url: 'originalUrl',
  country: 'visitorCountry',
  device: 'deviceType',
};

function describeUnknownField(property: string): string {
  const sField = S_FIELD_FOR_G_FIELD[property];
  return sField === undefined
    ? `${property} is not a recognised field`
    : `${property} is not a recognised field; use ${sField}`;
}
