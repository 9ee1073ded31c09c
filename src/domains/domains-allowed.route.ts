import { Injectable, OnModuleInit } from '@nestjs/common';
import { MetricsServer } from '../metrics/metrics-server';
import { DomainsService } from './domains.service';

const DOMAINS_ALLOWED_PATH = '/internal/domains/allowed';

/**
 * GET /internal/domains/allowed?domain=<hostname>: 200 for a verified branded domain, else
 * 404. The question a TLS terminator with on-demand certificates asks before it requests one
 * (Caddy's `on_demand_tls ask`, docs/domains.md). Served on the internal listener
 * (METRICS_HOST:METRICS_PORT), never the public one: it would tell anyone which hostnames are
 * customers'.
 */
@Injectable()
export class DomainsAllowedRoute implements OnModuleInit {
  constructor(
    private readonly server: MetricsServer,
    private readonly domains: DomainsService,
  ) {}

  onModuleInit(): void {
    this.server.addRoute(DOMAINS_ALLOWED_PATH, async (query) => {
      const domain = query.get('domain') ?? '';
      return (await this.domains.isServed(domain))
        ? { status: 200, body: 'allowed\n' }
        : { status: 404, body: 'unknown domain\n' };
    });
  }
}
