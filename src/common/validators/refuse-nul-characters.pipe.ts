import { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

const NUL = '\u0000';
const MESSAGE = 'must not contain the NUL character (U+0000)';

/**
 * PostgreSQL text cannot hold U+0000: a NUL in any string of a body or query would fail the
 * statement that stores or searches it (a 500). Refused up front, for every route, with a 400
 * naming the field, before the ValidationPipe (a bulk request as a whole: NUL is not text).
 * Bodies are bounded (1 MiB, 32 levels), so the walk is cheap. Path ids are left alone: an id
 * that names nothing is a 404 whatever it holds (docs/design.md section 2), and no id lookup
 * reaches SQL with one.
 */
export class RefuseNulCharactersPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body' && metadata.type !== 'query') return value;
    const field = findNul(value, '');
    if (field !== null) {
      const name = field === '' ? 'body' : field;
      throw new AppError(ErrorCode.VALIDATION_ERROR, `Invalid request: ${name}.`, {
        [name]: [`${name} ${MESSAGE}`],
      });
    }
    return value;
  }
}

/** The path of the first string (or key) holding a NUL, '' for the value itself; else null. */
function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    if (key.includes(NUL)) return childPath;
    const found = findNul(child, childPath);
    if (found !== null) return found;
  }
  return null;
}
