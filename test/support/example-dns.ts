import * as dns from 'node:dns';

/** example.com's public IPv4 address (IANA), for hosts without a resolver. */
const EXAMPLE_COM_ADDRESS = '93.184.215.14';

/**
 * The documented webhook examples register https://example.com/…, which the API accepts only
 * once the name resolves to public addresses. Test machines may have no resolver: this answers
 * example.com's lookup with its public address (in this process, where the test app runs)
 * and leaves every other name to the system. Returns the restore function.
 */
export function resolveExampleDotCom(): () => void {
  const original = dns.promises.lookup.bind(dns.promises);
  const lookup = jest.spyOn(dns.promises, 'lookup');
  lookup.mockImplementation(((hostname: string, options?: dns.LookupAllOptions) =>
    hostname === 'example.com'
      ? Promise.resolve(
          options?.all === true
            ? [{ address: EXAMPLE_COM_ADDRESS, family: 4 }]
            : { address: EXAMPLE_COM_ADDRESS, family: 4 },
        )
      : original(hostname, options as dns.LookupAllOptions)) as typeof dns.promises.lookup);
  return () => lookup.mockRestore();
}
