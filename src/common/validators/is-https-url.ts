import { Transform } from 'class-transformer';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isForbiddenTarget } from '../net/is-forbidden-target';

const MAX_URL_LENGTH = 4096;

/**
 * C0 controls (CR, LF, TAB, NUL...), DEL and C1 controls. The WHATWG parser would silently
 * drop CR, LF and TAB and encode the rest, so a URL holding one is refused instead: it is
 * either an injection attempt or a copy-paste accident, and neither should become a link.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** True when the text holds a C0 or C1 control character (see CONTROL_CHARACTER). */
const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);

/** Why a string is not an absolute https URL we accept; null when it is one. */
export function describeHttpsUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a URL';
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  if (hasControlCharacter(value)) {
    return 'must not contain control characters (CR, LF, TAB, NUL or any other C0/C1 control)';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  const ipLiteral = ipLiteralOf(url.hostname);
  if (ipLiteral !== null) {
    if (isForbiddenTarget(ipLiteral)) {
      return 'must not point to a private, loopback, link-local or otherwise non-public address';
    }
  } else if (!url.hostname.includes('.')) {
    return 'must name a public host';
  }
  if (url.href.length > MAX_URL_LENGTH) {
    return `must be at most ${MAX_URL_LENGTH} characters once percent-encoded`;
  }
  return null;
}

/**
 * The address a host names literally, or null for a domain name. The WHATWG parser has already
 * turned every IPv4 spelling (`2130706433`, `0x7f.1`, `0177.0.0.1`) into dotted decimal and
 * put IPv6 in brackets, so one address-range rule judges both families, the same rule the
 * probes and webhooks connect by.
 */
function ipLiteralOf(hostname: string): string | null {
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) ? hostname : null;
}

/**
 * The WHATWG serialisation of an acceptable URL (percent-encoded path and query, punycode
 * host): the only form we store and serve, so every Location header we write is legal HTTP.
 * Anything else is returned unchanged for the validator to refuse with its reason.
 */
export function serialiseHttpsUrl(value: unknown): unknown {
  return describeHttpsUrlProblem(value) === null ? new URL(value as string).href : value;
}

/**
 * An absolute https URL of at most 4096 characters (CreateLinkRequest.originalUrl [S]),
 * without control characters, to a public host (visitors are sent there: never into an
 * intranet or a cloud metadata service), stored in its WHATWG serialisation.
 */
export function IsHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    // class-transformer runs before class-validator: the DTO holds the serialised form.
    Transform(({ value }: { value: unknown }) => serialiseHttpsUrl(value))(target, propertyName);
    registerDecorator({
      name: 'isHttpsUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => describeHttpsUrlProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${describeHttpsUrlProblem(args.value) ?? 'is invalid'}`,
      },
    });
  };
}

/** A string free of control characters (values that end up inside a URL, such as UTM values). */
export function HasNoControlCharacters(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'hasNoControlCharacters',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !hasControlCharacter(value),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must not contain control characters (CR, LF, TAB, NUL or any other C0/C1 control)`,
      },
    });
}
