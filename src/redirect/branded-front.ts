import type { IncomingMessage } from 'node:http';
import type { BrandedTargetsService } from '../domains/branded-targets.service';
import type { VerifiedHost } from '../domains/verified-host';
import { RESERVED_SLUGS, SLUG_PATTERN } from '../domains/slug-rules';
import type { EdgeAnswer } from './edge-answer';

/** A visit to a branded domain: the domain, and the link its slug names (null: none). */
export interface BrandedVisit {
  domain: VerifiedHost;
  linkId: string | null;
}

/**
 * The edge's side of branded domains (docs/domains.md): a GET or HEAD whose `Host` is a
 * verified domain and whose path is `/<slug>` is a click on the slug's link, answered like
 * `/r/<id>`. Paths whose first segment is reserved (`/r/…`, `/v1/…`, `/docs`, the probes) keep
 * the service's own routes on every host, and are looked at before the `Host` is.
 */
export class BrandedFront {
  constructor(private readonly targets: BrandedTargetsService) {}

  /**
   * The visit this request is, or null when it is none (the request goes on as today). A
   * value when the slug's link is in process, else a promise.
   */
  visitOf(request: IncomingMessage): BrandedVisit | Promise<BrandedVisit> | null {
    if (request.method !== 'GET' && request.method !== 'HEAD') return null;
    const url = request.url ?? '';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const segmentEnd = path.indexOf('/', 1);
    const firstSegment = path.slice(1, segmentEnd === -1 ? undefined : segmentEnd).toLowerCase();
    if (!path.startsWith('/') || RESERVED_SLUGS.has(firstSegment)) return null;
    const host = hostnameOf(request.headers.host);
    const domain = host === null ? undefined : this.targets.domainOf(host);
    if (domain === undefined) return null;
    // Slugs are stored lowercased: any case reaches the link.
    const slug = segmentEnd === -1 ? firstSegment : '';
    if (!SLUG_PATTERN.test(slug)) return { domain, linkId: null };
    const found = this.targets.linkIdOf(domain, slug);
    return found instanceof Promise
      ? found.then((linkId) => ({ domain, linkId }))
      : { domain, linkId: found };
  }
}

/**
 * What a branded visit answers once its link was looked up: a slug without a live link sends
 * the visitor to the domain's notFoundUrl when it has one.
 */
export function brandedAnswerOf(answer: EdgeAnswer, domain: VerifiedHost): EdgeAnswer {
  return answer.kind === 'not_found' && domain.notFoundUrl !== null
    ? { kind: 'redirect', location: domain.notFoundUrl }
    : answer;
}

/** The `Host` header's name, lowercase, without port or final dot; null for an IP literal. */
function hostnameOf(host: string | undefined): string | null {
  if (host === undefined || host.startsWith('[')) return null;
  const portStart = host.indexOf(':');
  const name = (portStart === -1 ? host : host.slice(0, portStart)).toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
