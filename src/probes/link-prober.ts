import { performance } from 'node:perf_hooks';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Agent, request } from 'undici';
import { InjectConfig } from '../config/config.module';
import { ProbesConfig } from '../config/env';
import { buildPinnedConnector, isCausedByForbiddenTarget } from './pinned-connector';
import {
  DeepLinkProbeResult,
  HealthProbeResult,
  MAX_HEALTH_HOPS,
  PROBE_BUDGET_MS,
  ProbeFailure,
  ProbeHop,
} from './rules/probe-results';

const USER_AGENT = 'LinkpilotProbe/1.0 (+https://linkpilot.io)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** HEAD not supported: ask again with GET (health walk only; the deep-link rule is HEAD). */
const HEAD_UNSUPPORTED_STATUSES = new Set([405, 501]);

type Answer = { kind: 'answered'; statusCode: number; location: string | null } | ProbeFailed;
type ProbeFailed = { kind: 'failed'; failure: ProbeFailure };

function parseHttpUrl(text: string, base?: URL): URL | null {
  if (!URL.canParse(text, base?.href)) return null;
  const url = new URL(text, base?.href);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  return url;
}

/**
 * The HTTP side of probes (docs/design.md section 6): undici, a 3 s budget per probe, redirects
 * followed by hand, and every connection made to an address checked against the SSRF rule.
 * Never throws: what happened comes back as plain data for the rules in `rules/`.
 */
@Injectable()
export class LinkProber implements OnApplicationShutdown {
  private readonly dispatcher: Agent;
  /** Tests only (PROBE_TARGET_OVERRIDE): every request goes to this origin over plain http. */
  private readonly overrideOrigin: string | null;

  constructor(@InjectConfig('probes') config: ProbesConfig) {
    this.overrideOrigin =
      config.targetOverride === null ? null : new URL(config.targetOverride).origin;
    this.dispatcher = new Agent({
      connect: buildPinnedConnector(config.allowPrivateTargets, PROBE_BUDGET_MS),
      keepAliveTimeout: 1000,
    });
  }

  /** One HEAD, no redirect followed. */
  async probeDeepLink(url: string): Promise<DeepLinkProbeResult> {
    const target = parseHttpUrl(url);
    if (target === null) return { kind: 'failed', failure: 'unsupported_url' };
    const startedAt = performance.now();
    const answer = await this.send(target, 'HEAD', AbortSignal.timeout(PROBE_BUDGET_MS));
    if (answer.kind === 'failed') return answer;
    return {
      kind: 'answered',
      statusCode: answer.statusCode,
      elapsedMs: Math.round(performance.now() - startedAt),
    };
  }

  /** Follows redirects by hand, up to MAX_HEALTH_HOPS requests, all within one budget. */
  async probeHealth(url: string): Promise<HealthProbeResult> {
    const start = parseHttpUrl(url);
    if (start === null) return { hops: [], stop: 'unsupported_url' };
    let current: URL = start;
    const signal = AbortSignal.timeout(PROBE_BUDGET_MS);
    const visited = new Set<string>();
    const hops: ProbeHop[] = [];
    while (hops.length < MAX_HEALTH_HOPS) {
      visited.add(current.href);
      let answer = await this.send(current, 'HEAD', signal);
      if (answer.kind === 'answered' && HEAD_UNSUPPORTED_STATUSES.has(answer.statusCode)) {
        answer = await this.send(current, 'GET', signal);
      }
      if (answer.kind === 'failed') return { hops, stop: answer.failure };
      const isRedirect = REDIRECT_STATUSES.has(answer.statusCode) && answer.location !== null;
      const next: URL | null = isRedirect ? parseHttpUrl(answer.location ?? '', current) : null;
      hops.push({
        url: current.href,
        statusCode: answer.statusCode,
        redirectsTo: next?.href ?? null,
      });
      if (!isRedirect) return { hops, stop: 'final_answer' };
      if (next === null) return { hops, stop: 'unsupported_url' };
      if (visited.has(next.href)) return { hops, stop: 'redirect_loop' };
      current = next;
    }
    return { hops, stop: 'hop_limit' };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.destroy();
  }

  private async send(target: URL, method: 'HEAD' | 'GET', signal: AbortSignal): Promise<Answer> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
    // Concatenated, not resolved: a path such as `//other.host/` must stay a path.
    const requestUrl =
      this.overrideOrigin === null
        ? target
        : `${this.overrideOrigin}${target.pathname}${target.search}`;
    if (this.overrideOrigin !== null) headers.host = target.host;
    try {
      const response = await request(requestUrl, {
        dispatcher: this.dispatcher,
        method,
        headers,
        signal,
      });
      // Only the status matters: past its first byte the body is dropped (dump never rejects).
      await response.body.dump({ limit: 1 });
      const location = response.headers.location;
      return {
        kind: 'answered',
        statusCode: response.statusCode,
        location: (Array.isArray(location) ? location[0] : location) || null,
      };
    } catch (error) {
      if (signal.aborted) return { kind: 'failed', failure: 'timeout' };
      if (isCausedByForbiddenTarget(error)) return { kind: 'failed', failure: 'forbidden_target' };
      return { kind: 'failed', failure: 'network_error' };
    }
  }
}
