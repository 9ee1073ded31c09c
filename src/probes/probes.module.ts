import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LinkEntity } from '../links/link.entity';
import { LinkProber } from './link-prober';
import { ProbeExpiryJob } from './probe-expiry.job';
import { ProbesRepository } from './probes.repository';
import { ProbesService } from './probes.service';

/**
 * Deep-link and link-health probes (DESIGN section 6). The links module calls
 * `ProbesService.enqueue` after creating a link; the expiry job fires only where
 * ScheduleModule is loaded (the server).
 */
@Module({
  imports: [TypeOrmModule.forFeature([LinkEntity])],
  providers: [ProbesService, ProbesRepository, LinkProber, ProbeExpiryJob],
  exports: [ProbesService],
})
export class ProbesModule {}
