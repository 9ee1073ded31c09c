import * as net from 'node:net';
import { Pool } from 'undici';

/** One request as it goes on the wire. */
export interface WireRequest {
  method: string;
  /** The request target, every character in 0x21-0xFF (undici sends it as Latin-1). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What came back: an HTTP answer, or why none came. */
export type Exchange =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer }
  | { kind: 'no-answer'; reason: string };

/**
 * Long enough for a 100-item bulk create on a busy 2-core CI box with PGlite, short enough
 * that a request the server never answers fails the batch instead of hanging jest.
 */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * A keep-alive connection pool to the app listening on loopback. Supertest opens a
 * connection per request, which caps a run at a few hundred requests per second.
 */
export class HttpTarget {
  private readonly pool: Pool;

  constructor(
    readonly origin: string,
    connections: number,
  ) {
    this.pool = new Pool(origin, {
      connections,
      pipelining: 1,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    });
  }

  /** Never throws: a transport failure is an outcome to check, not a test crash. */
  async send(request: WireRequest, signal?: AbortSignal): Promise<Exchange> {
    try {
      const response = await this.pool.request({
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        signal,
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      return {
        kind: 'answer',
        status: response.statusCode,
        headers: flatten(response.headers),
        body,
      };
    } catch (error) {
      return { kind: 'no-answer', reason: describeTransportError(error) };
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function describeTransportError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? ` (cause: ${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${causeText}`;
}

/**
 * Sends bytes that no HTTP client library would send (bad request lines, control characters
 * in header values, oversized heads) on a fresh connection, and reads what comes back until
 * the server closes it. Only the status line, headers and Content-Length body are parsed.
 */
export function sendRawBytes(
  port: number,
  bytes: Buffer,
  signal?: AbortSignal,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<Exchange | { kind: 'closed' }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: '127.0.0.1', port });
    let settled = false;
    const finish = (outcome: Exchange | { kind: 'closed' }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ kind: 'no-answer', reason: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parseRawResponse(Buffer.concat(chunks));
      if (parsed !== null) finish(parsed);
    });
    socket.on('error', () => undefined); // a reset after the answer is the server's right
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      if (all.length === 0) finish({ kind: 'closed' });
      else finish(parseRawResponse(all, true) ?? { kind: 'no-answer', reason: 'garbled answer' });
    });
    signal?.addEventListener('abort', () => finish({ kind: 'no-answer', reason: 'aborted' }));
    if (signal?.aborted === true) finish({ kind: 'no-answer', reason: 'aborted' });
    else socket.write(bytes);
  });
}

/** The first response in `data`, or null while more bytes are needed (unless `final`). */
function parseRawResponse(data: Buffer, final = false): Exchange | null {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...headerLines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status))
    return { kind: 'no-answer', reason: `bad status line ${statusLine}` };
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const body = data.subarray(headEnd + 4);
  if (Number.isInteger(length)) {
    if (body.length < length && !final) return null;
    return { kind: 'answer', status, headers, body: body.subarray(0, length) };
  }
  if (!final) return null;
  const chunked = /chunked/i.test(headers['transfer-encoding'] ?? '');
  return { kind: 'answer', status, headers, body: chunked ? dechunk(body) : body };
}

/** The payload of a chunked body (extensions and trailers ignored). */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isInteger(size) || size === 0) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
