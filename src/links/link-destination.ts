import type { ProductCategory } from '../merchants/kb/merchant-profile';
import type { NetworkId } from '../networks/network-ids';
import type {
  DeviceType,
  NetworkOverridePin,
  RoutingOutcome,
  RoutingPresetId,
  UtmOverride,
} from '../routing/engine/routing-types';
import type { RouteAnswer, RouteQuestion, RoutingContext } from '../routing/routing.service';

/**
 * A route stored at write time: a link's own (LinkRoutingRecord.stored) or a destination's, served
 * to visitors the edge knows nothing of.
 */
export interface StoredRoute {
  routedUrl: string;
  region: string | null;
  networkId: NetworkId | null;
  outcome: RoutingOutcome;
  normalizedEpcUsd: number;
  confidenceFactor: number;
  deepLinkUsed: boolean;
}

/**
 * What destinationRecordOf needs of a link's routing record (LinkRoutingRecord, not imported:
 * the record holds destinations, so naming it here would make the two modules a cycle).
 */
interface DestinationRoutable {
  originalUrl: string;
  merchantId: string | null;
  stored: StoredRoute;
}

/**
 * A destination of a link besides its originalUrl (a redirect rule's, a fallback's),
 * canonicalised and routed at write time exactly as the link's own URL is on create, and kept
 * as plain data (a jsonb column, the edge's JSON cache). At click time it is routed like the
 * link's own URL: destinationRecordOf gives the edge the link's record pointing at it.
 */
export interface LinkDestination {
  originalUrl: string;
  /** canonicaliseUrl's result; '' when the destination is passthrough. */
  canonicalUrl: string;
  merchantId: string | null;
  /** The route for requests with no visitor context, as LinkRoutingRecord.stored. */
  stored: StoredRoute;
}

/** The link's settings a destination is routed with (those the link's own route used). */
export interface DestinationSettings {
  preset?: RoutingPresetId | null;
  category?: ProductCategory | null;
  networkOverride?: NetworkOverridePin | null;
  utmOverride?: UtmOverride | null;
  visitorCountry?: string | null;
  deviceType?: DeviceType | null;
}

/** The one decision step a destination needs: RoutingService.decideWith. */
export interface DestinationRouter {
  decideWith(context: RoutingContext, question: RouteQuestion): RouteAnswer;
}

/**
 * Routes a validated destination URL (IsHttpsUrl on its field) with the link's settings, through
 * the same engine call link creation makes. Never passthrough on purpose: like the link's own
 * route, passthrough is the link's switch (LinkRoutingRecord.passthrough), applied at click time
 * to every destination; a merchant that imposes passthrough gets it from the engine anyway.
 */
export function routeDestination(
  router: DestinationRouter,
  context: RoutingContext,
  url: string,
  settings: DestinationSettings,
): LinkDestination {
  const { decision } = router.decideWith(context, {
    originalUrl: url,
    visitorCountry: settings.visitorCountry ?? null,
    deviceType: settings.deviceType ?? null,
    preset: settings.preset ?? 'default',
    category: settings.category ?? null,
    passthrough: false,
    networkOverride: settings.networkOverride ?? null,
    utmOverride: settings.utmOverride ?? null,
  });
  return {
    originalUrl: url,
    canonicalUrl: decision.canonicalUrl,
    merchantId: decision.merchantId,
    stored: {
      routedUrl: decision.routedUrl,
      region: decision.region,
      networkId: decision.networkId,
      outcome: decision.outcome,
      // Rounded as the link's own numeric columns store them, so reads agree with writes.
      normalizedEpcUsd: Number(decision.normalizedEpcUsd.toFixed(6)),
      confidenceFactor: Number(decision.confidenceFactor.toFixed(4)),
      deepLinkUsed: decision.deepLinkUsed,
    },
  };
}

/**
 * Per record, its destinations' records. The click router memoises engine inputs and routes per
 * record object, so a destination's record must be one object for as long as the link's record
 * is: made once, dropped with it.
 */
const destinationRecords = new WeakMap<DestinationRoutable, WeakMap<LinkDestination, object>>();

/**
 * The link's record with the destination in place of its originalUrl, merchant and stored route:
 * what the edge routes (by EPC, with click-time market routing and the creator's tags) when the
 * destination is picked. `destination` must belong to `record` (read from it).
 */
export function destinationRecordOf<Routable extends DestinationRoutable>(
  record: Routable,
  destination: LinkDestination,
): Routable {
  let byDestination = destinationRecords.get(record);
  if (byDestination === undefined) {
    byDestination = new WeakMap();
    destinationRecords.set(record, byDestination);
  }
  let destinationRecord = byDestination.get(destination) as Routable | undefined;
  if (destinationRecord === undefined) {
    destinationRecord = {
      ...record,
      originalUrl: destination.originalUrl,
      merchantId: destination.merchantId,
      stored: destination.stored,
    };
    byDestination.set(destination, destinationRecord);
  }
  return destinationRecord;
}
