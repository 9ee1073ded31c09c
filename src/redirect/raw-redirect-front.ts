import { Logger } from '@nestjs/common';
import proxyaddr from '@fastify/proxy-addr';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { newUlid } from '../common/ids';
import type { TrustFunction } from '../common/http/trust-proxy';
import { renderEdgeAnswer, RenderedEdgeAnswer } from './edge-answer';
import type { RedirectHandler } from './redirect.handler';

/** A plain visitor click: /r/ and an id of letters and digits (ULIDs, in either case). */
const PLAIN_CLICK_PATH = /^\/r\/([0-9A-Za-z]{1,64})(?:\?|$)/;

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The edge redirect's fast front: plain GET and HEAD clicks on /r/:linkId are answered
 * straight from node:http, ahead of Fastify's routing, hooks and reply machinery, which cost
 * about a quarter of a click's CPU in `npm run bench`. Everything else, including clicks
 * that need what a Fastify hook does (CORS for a request with an Origin, the HTTPS redirect
 * behind a proxy) or an id that needs decoding, goes to Fastify, whose /r/:linkId route
 * gives the same answers from the same RedirectHandler. Answers carry the headers those
 * hooks add to every answer: X-Request-Id and Vary: Origin (http-hooks.ts).
 */
export class RawRedirectFront {
  private readonly logger = new Logger('Redirect');
  private handler: RedirectHandler | null = null;

  constructor(private readonly options: { requireHttps: boolean; isTrusted: TrustFunction }) {}

  /** Fastify's `serverFactory`: a node:http server that sends clicks here first. */
  createServer(fastifyListener: RequestListener, fastifyOptions: Record<string, unknown>): Server {
    const server = createServer((request, response) => {
      const linkId = this.handler === null ? null : this.plainClickLinkId(request);
      if (linkId === null) fastifyListener(request, response);
      else this.serve(this.handler as RedirectHandler, linkId, request, response);
    });
    // What Fastify sets on the servers it creates (fastify/lib/server.js), from its resolved
    // options (defaults included).
    const option = (name: string): number | undefined => {
      const value = fastifyOptions[name];
      return typeof value === 'number' ? value : undefined;
    };
    server.keepAliveTimeout = option('keepAliveTimeout') ?? server.keepAliveTimeout;
    server.requestTimeout = option('requestTimeout') ?? server.requestTimeout;
    server.setTimeout(option('connectionTimeout') ?? 0);
    const maxRequestsPerSocket = option('maxRequestsPerSocket') ?? 0;
    if (maxRequestsPerSocket > 0) server.maxRequestsPerSocket = maxRequestsPerSocket;
    return server;
  }

  /** Clicks are served here from now on; before, Fastify serves them (or 404s before boot). */
  attach(handler: RedirectHandler): void {
    this.handler = handler;
  }

  private plainClickLinkId(request: IncomingMessage): string | null {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const match = PLAIN_CLICK_PATH.exec(request.url ?? '');
    if (match === null) return null;
    if (request.headers.origin !== undefined) return null;
    if (this.options.requireHttps && request.headers['x-forwarded-proto'] !== undefined) {
      return null;
    }
    return match[1];
  }

  private serve(
    handler: RedirectHandler,
    linkId: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): void {
    const requestId = newUlid();
    handler
      .answer({
        linkId,
        isHead: request.method === 'HEAD',
        headers: request.headers,
        peerAddress: request.socket.remoteAddress ?? '',
        clientIp: proxyaddr(request, this.options.isTrusted),
      })
      .then(
        (answer) => write(response, renderEdgeAnswer(answer, requestId), requestId),
        (error: unknown) => {
          this.logger.error(`GET /r/${linkId} failed (request ${requestId})`, error);
          write(response, internalError(requestId), requestId);
        },
      );
  }
}

function write(response: ServerResponse, answer: RenderedEdgeAnswer, requestId: string): void {
  response.writeHead(answer.status, {
    ...answer.headers,
    'x-request-id': requestId,
    vary: 'Origin',
  });
  response.end(answer.body);
}

function internalError(requestId: string): RenderedEdgeAnswer {
  return {
    status: 500,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal error.', requestId },
    }),
  };
}
