import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const NOT_WELL_FORMED_MESSAGE =
  'must be well-formed Unicode text: it holds a lone surrogate (U+D800 to U+DFFF, as a ' +
  '\\u escape or as its UTF-8 bytes) or percent-encoded bytes that are not UTF-8';

/** A string (or an object key) a request may not carry, and where. */
export interface MalformedText {
  /**
   * Its path (`utmOverride.utm_source`, `links.0.title`), '' for the value itself. A lone
   * surrogate in a key is written as `\udfff`, so that the answer naming it is text every
   * JSON parser reads (strict ones refuse a lone surrogate escape).
   */
  field: string;
  message: string;
}

export interface TextRules {
  /** NUL refused as well: PostgreSQL text cannot hold it. */
  isNulRefused: boolean;
  /** A top-level array property whose items are left to a check of their own (a bulk's). */
  itemsValidatedAlone?: string;
}

/**
 * The first string or key of `value` that the service cannot take as text, or null. A lone
 * UTF-16 surrogate is not text: PostgreSQL's json refuses it (the statement fails), its
 * text columns and node's UTF-8 encoder turn it into U+FFFD. NUL is text but PostgreSQL
 * cannot store it. U+FFFD itself, a BOM and non-characters (U+FFFE, U+1FFFE, …) are text
 * and pass. Request bodies are bounded (1 MiB, 32 levels), so the walk is cheap.
 */
export function findMalformedText(value: unknown, rules: TextRules): MalformedText | null {
  return findIn(value, '', rules, rules.itemsValidatedAlone);
}

function findIn(
  value: unknown,
  path: string,
  rules: TextRules,
  itemsValidatedAlone: string | undefined,
): MalformedText | null {
  if (typeof value === 'string') {
    const message = describeProblem(value, rules);
    return message === null ? null : { field: printable(path), message };
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    const keyMessage = describeProblem(key, rules);
    if (keyMessage !== null) return { field: printable(childPath), message: keyMessage };
    if (key === itemsValidatedAlone && Array.isArray(child)) continue;
    const found = findIn(child, childPath, rules, undefined);
    if (found !== null) return found;
  }
  return null;
}

function describeProblem(text: string, rules: TextRules): string | null {
  if (!text.isWellFormed()) return NOT_WELL_FORMED_MESSAGE;
  if (rules.isNulRefused && text.includes(NUL)) return NUL_MESSAGE;
  return null;
}

const printable = (path: string): string =>
  path.replace(/\p{Cs}/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The 400 for it, in the shape class-validator's errors take: `Invalid <subject>: <field>.`
 * with details naming the field (`name` when the value itself is the string).
 */
export function toMalformedTextError(
  found: MalformedText,
  subject: string,
  name: string,
): AppError {
  const field = found.field === '' ? name : found.field;
  return new AppError(ErrorCode.VALIDATION_ERROR, `Invalid ${subject}: ${field}.`, {
    [field]: [`${field} ${found.message}`],
  });
}
