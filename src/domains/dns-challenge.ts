import { Injectable } from '@nestjs/common';
import { Resolver } from 'node:dns/promises';
import { InjectConfig } from '../config/config.module';
import { DomainsConfig } from '../config/env';
import type { CheckOutcome } from './domains.repository';

/** The name the TXT record is published under, for `hostname`. */
export const challengeRecordName = (hostname: string): string => `_linkpilot-challenge.${hostname}`;

/** One check waits at most about this long (DNS answers in milliseconds when it answers). */
const TIMEOUT_MS = 2_000;
const TRIES = 2;

/** DNS errors that mean "no such record", not "DNS is failing". */
const NO_RECORD_CODES = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/**
 * Looks for the verification token in the `_linkpilot-challenge.<hostname>` TXT records,
 * through the resolvers DNS_RESOLVERS names (else the system's). A record of several strings
 * is read joined, as DNS providers split long values.
 */
@Injectable()
export class DnsChallenge {
  constructor(@InjectConfig('domains') private readonly config: DomainsConfig) {}

  async check(hostname: string, token: string): Promise<CheckOutcome> {
    const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
    if (this.config.dnsResolvers.length > 0) resolver.setServers(this.config.dnsResolvers);
    const name = challengeRecordName(hostname);
    try {
      const records = await resolver.resolveTxt(name);
      if (records.some((chunks) => chunks.join('') === token)) return { isVerified: true };
      return { isVerified: false, error: `No TXT record of ${name} holds the token` };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && NO_RECORD_CODES.has(code)) {
        return { isVerified: false, error: `${name} has no TXT record` };
      }
      return {
        isVerified: false,
        error: `DNS lookup of ${name} failed (${typeof code === 'string' ? code : 'error'})`,
      };
    } finally {
      resolver.cancel();
    }
  }
}
