import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { findMalformedText, TextRules, toMalformedTextError } from './malformed-text';

/** Request classes whose array items are validated one by one (see ItemsValidatedAlone). */
const ITEMS_VALIDATED_ALONE = new WeakMap<object, string>();

/**
 * Marks a request class whose `property` array is validated item by item by its service,
 * so that one bad item fails alone (the bulk's 207): the global text rule leaves those items
 * to the service, which applies it to each (findMalformedText).
 */
export function ItemsValidatedAlone(property: string): ClassDecorator {
  return (target) => {
    ITEMS_VALIDATED_ALONE.set(target, property);
  };
}

/**
 * The text rule for every route, before the ValidationPipe (findMalformedText): any string
 * or key of a body or query that is not well-formed Unicode (a lone surrogate, or query bytes
 * that are not UTF-8, see parseQueryString), or holds a NUL, is a 400 naming the field,
 * never a 500 from PostgreSQL nor a silent U+FFFD. Path parameters get the well-formedness
 * rule only: a NUL in an id is text, and an id that names nothing is a 404 whatever it holds
 * (docs/design.md section 2); a lone surrogate cannot be an id at all.
 */
export class RefuseMalformedTextPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const rules = rulesFor(metadata);
    if (rules === null) return value;
    const found = findMalformedText(value, rules);
    if (found !== null) {
      throw toMalformedTextError(found, 'request', metadata.data ?? metadata.type);
    }
    return value;
  }
}

function rulesFor(metadata: ArgumentMetadata): TextRules | null {
  switch (metadata.type) {
    case 'body':
    case 'query':
      return {
        isNulRefused: true,
        itemsValidatedAlone:
          metadata.metatype === undefined
            ? undefined
            : ITEMS_VALIDATED_ALONE.get(metadata.metatype),
      };
    case 'param':
      return { isNulRefused: false };
    case 'custom':
      return null;
  }
}
