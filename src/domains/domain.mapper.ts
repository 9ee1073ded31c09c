import { challengeRecordName } from './dns-challenge';
import type { DomainRecord } from './domains.repository';
import type { DomainResponse } from './domain.response';

export function toDomainResponse(domain: DomainRecord): DomainResponse {
  return {
    id: domain.id,
    hostname: domain.hostname,
    notFoundUrl: domain.notFoundUrl,
    environment: domain.environment,
    verified: domain.verifiedAt !== null,
    verifiedAt: domain.verifiedAt?.toISOString() ?? null,
    verification: {
      recordName: challengeRecordName(domain.hostname),
      recordType: 'TXT',
      recordValue: domain.verificationToken,
    },
    lastCheckedAt: domain.lastCheckedAt?.toISOString() ?? null,
    lastCheckError: domain.lastCheckError,
    createdAt: domain.createdAt.toISOString(),
  };
}
