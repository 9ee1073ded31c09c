import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

export const MAX_URL_LENGTH = 4096;

/** Why a string is not an absolute https URL we accept; null when it is one. */
export function describeHttpsUrlProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return 'must be a URL';
  if (value.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (!url.hostname.includes('.')) return 'must name a public host';
  return null;
}

/** An absolute https URL of at most 4096 characters (CreateLinkRequest.originalUrl [S]). */
export function IsHttpsUrl(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
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
}
