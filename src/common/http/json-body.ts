import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

/** Request bodies larger than this are 413 PAYLOAD_TOO_LARGE (a 100-link bulk is ~100 KiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Objects and arrays nested deeper than this are refused before parsing. No request of ours
 * nests beyond four levels; a deep one is an attack on the validators, which recurse.
 */
const MAX_JSON_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * True when the JSON text opens more than `maxDepth` objects or arrays inside one another.
 * One pass over the text, skipping strings; it does not validate (the parser does that), so
 * on malformed text it may answer either way and the parser then refuses it.
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

type ParserDone = (error: Error | null, body?: unknown) => void;

/**
 * Fastify's own JSON parser (prototype-poisoning keys refused) behind the depth bound, as a
 * Nest body parser for application/json. Other content types get Fastify's 415. A body that
 * is not UTF-8 is not JSON text (RFC 8259): refused whole with a 400, where decoding it would
 * have turned each bad byte into U+FFFD and stored that, silently.
 */
export function depthBoundJsonParser(
  fastify: FastifyInstance,
): (request: FastifyRequest, body: Buffer, done: ParserDone) => void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (!isUtf8(body)) {
      const message = 'The request body is not UTF-8, as JSON must be (RFC 8259 section 8.1).';
      done(new AppError(ErrorCode.VALIDATION_ERROR, message, { body: [message] }));
      return;
    }
    const text = body.toString('utf8');
    if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
      const message = `The request body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels.`;
      done(new AppError(ErrorCode.VALIDATION_ERROR, message, { body: [message] }));
      return;
    }
    void parse(request, text, done);
  };
}
