import { Module } from '@nestjs/common';
import { DnsChallenge } from './dns-challenge';
import { DomainEvictionsService } from './domain-evictions.service';
import { DomainVerificationJob } from './domain-verification.job';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/**
 * Branded domains (docs/domains.md): the API, the DNS verification and its job. What the edge
 * serves of them is DomainsEdgeModule's.
 */
@Module({
  controllers: [DomainsController],
  providers: [
    DomainsRepository,
    DomainsService,
    DnsChallenge,
    DomainEvictionsService,
    DomainVerificationJob,
  ],
  exports: [DomainsService, DomainEvictionsService],
})
export class DomainsModule {}
