import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newUlid } from '../ids';
import type { ErrorBody } from '../errors/all-exceptions.filter';
import { ERROR_STATUS, ErrorCode } from '../errors/error-code';

/**
 * Request line and headers together may hold this many bytes (node:http's default,
 * `maxHeaderSize`); past it node refuses the request before any route sees it.
 */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Fastify's `clientErrorHandler`: what node:http could not parse as a request (headers over
 * MAX_HEADER_BYTES, a malformed request line, a timeout) is answered in the project's error
 * envelope, like everything else, instead of Fastify's own body; then the socket is closed,
 * since the connection's framing can no longer be trusted.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = describe(error.code);
  if (socket.writable) {
    const body: ErrorBody = { success: false, error: { code, message, requestId: newUlid() } };
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}

function describe(nodeCode: string | undefined): {
  status: number;
  code: ErrorCode;
  message: string;
} {
  if (nodeCode === 'HPE_HEADER_OVERFLOW') {
    return {
      status: ERROR_STATUS[ErrorCode.HEADERS_TOO_LARGE],
      code: ErrorCode.HEADERS_TOO_LARGE,
      message: `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`,
    };
  }
  if (nodeCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      code: ErrorCode.VALIDATION_ERROR,
      message: 'The request was not received in time.',
    };
  }
  return {
    status: 400,
    code: ErrorCode.VALIDATION_ERROR,
    message: 'The request is not valid HTTP/1.1.',
  };
}

/**
 * Fastify's `frameworkErrors`: a path with broken percent-encoding (`/r/%E0%A4%A`) never
 * reaches a route or the onRequest hooks. On the edge path it names no link, so it is the
 * redirect's 404 (docs/design.md section 2: an id that does not exist is a 404); elsewhere
 * a 400.
 */
export function answerUndecodablePath(
  _error: Error,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const requestId = String(request.id);
  const isEdge = request.url.startsWith('/r/');
  const code = isEdge ? ErrorCode.LINK_NOT_FOUND : ErrorCode.VALIDATION_ERROR;
  const message = isEdge ? 'No such link.' : 'The request path holds invalid percent-encoding.';
  const body: ErrorBody = { success: false, error: { code, message, requestId } };
  void reply
    .status(ERROR_STATUS[code])
    .headers({ 'x-request-id': requestId, 'cache-control': 'private, no-store' })
    .send(body);
}
