import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { KeyEnvironment } from './api-key.entity';

/**
 * API keys look like `lp_live_sk_<40 lowercase hex>` (docs/design.md section 1). The last 8
 * hex digits are a CRC-32 of everything before them, as GitHub's token format does: a mistyped
 * or made-up key is refused before any database read, and secret scanners can recognise ours.
 */
const KEY_PATTERN = /^lp_(live|test)_sk_([0-9a-f]{32})([0-9a-f]{8})$/;
const DISPLAY_PREFIX_LENGTH = 15; // `lp_live_sk_` plus 4 hex digits

export interface ParsedApiKey {
  environment: KeyEnvironment;
}

function checksumOf(body: string): string {
  return crc32(body).toString(16).padStart(8, '0');
}

/** Returns the key's environment when it is well formed and its checksum matches, else null. */
export function parseApiKey(key: string): ParsedApiKey | null {
  const match = KEY_PATTERN.exec(key);
  if (match === null) return null;
  const body = key.slice(0, key.length - 8);
  const expected = Buffer.from(checksumOf(body));
  const actual = Buffer.from(match[3]);
  if (!timingSafeEqual(expected, actual)) return null;
  return { environment: match[1] as KeyEnvironment };
}

export function generateApiKey(
  environment: KeyEnvironment,
  random: (size: number) => Buffer = randomBytes,
): string {
  const body = `lp_${environment}_sk_${random(16).toString('hex')}`;
  return body + checksumOf(body);
}

/** SHA-256 hex: keys carry 128 random bits, so a fast hash is the standard choice. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefixOf(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Constant-time comparison of two SHA-256 hex hashes; anything else is never equal. */
export function isSameHash(a: string, b: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(a) || !/^[0-9a-f]{64}$/.test(b)) return false;
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
