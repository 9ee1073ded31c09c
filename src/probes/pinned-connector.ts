import * as dns from 'node:dns';
import { isIP, Socket } from 'node:net';
import { buildConnector } from 'undici';
import { isForbiddenTarget } from '../common/net/is-forbidden-target';

/*
 * The SSRF guard of outgoing requests (docs/link-probes.md "Link probes"), shared by the probes and the
 * webhook deliveries: every host is resolved here once and the socket opened to the very
 * address that was checked.
 */

/** The resolved address is one probes may not reach; carried through undici as the cause. */
class ForbiddenTargetError extends Error {
  readonly code = 'ERR_PROBE_FORBIDDEN_TARGET';
  constructor(hostname: string, address: string) {
    super(`Refused probe target ${hostname} (${address})`);
  }
}

/**
 * Resolves a host once and returns the address to connect to. Every address the name
 * resolves to must be allowed: a name mixing public and private answers is refused whole,
 * so no retry or second lookup can land on the private one.
 */
export async function resolveAllowedAddress(
  hostname: string,
  allowPrivate: boolean,
): Promise<string> {
  const addresses = isIP(hostname)
    ? [hostname]
    : (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map(
        (entry) => entry.address,
      );
  const refused = allowPrivate
    ? undefined
    : addresses.find((address) => isForbiddenTarget(address));
  if (refused !== undefined) throw new ForbiddenTargetError(hostname, refused);
  if (addresses.length === 0) throw new Error(`No address for ${hostname}`);
  return addresses[0];
}

/**
 * undici's connector with the host resolution done here: the socket is opened to the very
 * address that was checked (host = that IP, so Node does no lookup of its own), while TLS
 * keeps the hostname for SNI and certificate checks (undici derives servername from `host`).
 */
export function buildPinnedConnector(
  allowPrivate: boolean,
  connectTimeoutMs: number,
): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs });
  return (options, callback) => {
    resolveAllowedAddress(options.hostname, allowPrivate)
      .then(
        (address) =>
          new Promise<Socket>((resolve, reject) => {
            connect({ ...options, hostname: address }, (error, socket) => {
              if (error !== null) reject(error);
              else resolve(socket);
            });
          }),
      )
      .then(
        (socket) => callback(null, socket),
        (error: Error) => callback(error, null),
      );
  };
}

export function isCausedByForbiddenTarget(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof ForbiddenTargetError) return true;
    current = current.cause;
  }
  return false;
}
