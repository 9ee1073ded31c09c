import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module';
import { LinkProber } from './link-prober';
import { ProbeExpiryJob } from './probe-expiry.job';
import { ProbesService } from './probes.service';

/**
 * Deep-link and link-health probes (docs/design.md section 6). New links reach the queue through
 * the links module's events; results go back through its LinkProbeStatesService (links own
 * the table). The expiry job fires only where ScheduleModule is loaded (the server).
 */
@Module({
  imports: [LinksModule],
  providers: [ProbesService, LinkProber, ProbeExpiryJob],
  exports: [ProbesService],
})
export class ProbesModule {}
