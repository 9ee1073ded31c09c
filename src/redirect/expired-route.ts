import type { ExpiredDestination } from '../links/expired-destination';
import type { LinkRoutingRecord } from '../links/link-routing-record';

/**
 * The routing record an expired link's visitors are routed with (docs/edge.md "Expiry and
 * click caps"): the link's, with the expired URL's merchant and stored route, and no pin (it
 * names the link's merchant's network). A passthrough link serves its expired URL byte for
 * byte too. One object per link record, so the click router's per-record memos hold for it.
 */
export class ExpiredRoutes {
  private readonly records = new WeakMap<LinkRoutingRecord, LinkRoutingRecord>();

  recordOf(record: LinkRoutingRecord, destination: ExpiredDestination): LinkRoutingRecord {
    let expired = this.records.get(record);
    if (expired === undefined) {
      expired = expiredRecordOf(record, destination);
      this.records.set(record, expired);
    }
    return expired;
  }
}

function expiredRecordOf(
  record: LinkRoutingRecord,
  destination: ExpiredDestination,
): LinkRoutingRecord {
  const { limits: _limits, ...link } = record;
  return {
    ...link,
    originalUrl: destination.url,
    merchantId: destination.merchantId,
    passthrough: record.passthrough || destination.passthrough,
    networkOverride: null,
    probes: { deepLinkStatus: 'unchecked', healthStatus: 'unknown' },
    stored: {
      routedUrl: destination.routedUrl,
      region: destination.region,
      networkId: destination.networkId,
      outcome: destination.outcome,
      normalizedEpcUsd: destination.normalizedEpcUsd,
      confidenceFactor: destination.confidenceFactor,
      deepLinkUsed: destination.deepLinkUsed,
    },
  };
}
