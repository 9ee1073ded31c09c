import { Module } from '@nestjs/common';
import { BrandedTargetsService } from './branded-targets.service';
import { DomainsAllowedRoute } from './domains-allowed.route';
import { DomainsModule } from './domains.module';

/**
 * The server's side of branded domains: the edge's view of them (which `Host` is one, which
 * link a slug names) and the TLS terminator's question on the internal listener. Not in the
 * admin CLI, which serves nothing.
 */
@Module({
  imports: [DomainsModule],
  providers: [BrandedTargetsService, DomainsAllowedRoute],
  exports: [BrandedTargetsService],
})
export class DomainsEdgeModule {}
