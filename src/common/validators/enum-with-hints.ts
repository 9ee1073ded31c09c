import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * An [S] enumeration that names the right value when a client sends a known [G] spelling
 * (docs/design.md section 2): `preset: "link-in-bio"` → "use link_in_bio".
 */
export function IsEnumWithHints(
  values: readonly string[],
  hints: Readonly<Record<string, string>>,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isEnumWithHints',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && values.includes(value),
        defaultMessage: (args: ValidationArguments) => {
          const hint = typeof args.value === 'string' ? hints[args.value] : undefined;
          const allowed = `${args.property} must be one of ${values.join(', ')}`;
          return hint === undefined
            ? allowed
            : `${allowed}; use ${hint} instead of ${String(args.value)}`;
        },
      },
    });
}

export const PRESET_HINTS = {
  auto: 'default',
  'link-in-bio': 'link_in_bio',
  'long-form': 'long_form',
};
export const DEVICE_HINTS = { ios: 'mobile', android: 'mobile' };
