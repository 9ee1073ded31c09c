import { Foundation1763800000000 } from './1763800000000-foundation';
import { Merchants1763850000000 } from './1763850000000-merchants';
import { FxRates1763900000000 } from './1763900000000-fx-rates';
import { Links1763950000000 } from './1763950000000-links';
import { Clicks1764000000000 } from './1764000000000-clicks';
import { SerialisedLinkUrls1764100000000 } from './1764100000000-serialised-link-urls';
import { PlanCapabilities1764150000000 } from './1764150000000-plan-capabilities';
import { RecordEnvironments1764200000000 } from './1764200000000-record-environments';
import { LinkForwardQuery1764300000000 } from './1764300000000-link-forward-query';
import { ExcludedHits1764350000000 } from './1764350000000-excluded-hits';
import { EdgeProfileChanges1764400000000 } from './1764400000000-edge-profile-changes';
import { Webhooks1764250000000 } from './1764250000000-webhooks';
import { ClickRollups1764450000000 } from './1764450000000-click-rollups';
import { VisitorSketches1764500000000 } from './1764500000000-visitor-sketches';
import { ClickRollupWatermark1764520000000 } from './1764520000000-click-rollup-watermark';
import { MerchantOperatorEdits1764540000000 } from './1764540000000-merchant-operator-edits';
import { ClickRollupAudienceSplit1764550000000 } from './1764550000000-click-rollup-audience-split';
import { Conversions1764560000000 } from './1764560000000-conversions';
import { RoutingMode1764580000000 } from './1764580000000-routing-mode';
import { ClickRollupRegionDays1764600000000 } from './1764600000000-click-rollup-region-days';
import { ClickRollupLinkDeltas1764620000000 } from './1764620000000-click-rollup-link-deltas';
import { PlanOperatorEdits1764640000000 } from './1764640000000-plan-operator-edits';
import { BrandedDomains1764700000000 } from './1764700000000-branded-domains';
import { RedirectRules1764710000000 } from './1764710000000-redirect-rules';
import { LinkExpiry1764720000000 } from './1764720000000-link-expiry';
import { ClickSources1764730000000 } from './1764730000000-click-sources';

/** Every migration, in order. Listed as classes (not globs) so the same list runs from ts and dist. */
export const MIGRATIONS = [
  Foundation1763800000000,
  Merchants1763850000000,
  FxRates1763900000000,
  Links1763950000000,
  Clicks1764000000000,
  SerialisedLinkUrls1764100000000,
  PlanCapabilities1764150000000,
  RecordEnvironments1764200000000,
  Webhooks1764250000000,
  LinkForwardQuery1764300000000,
  ExcludedHits1764350000000,
  EdgeProfileChanges1764400000000,
  ClickRollups1764450000000,
  VisitorSketches1764500000000,
  ClickRollupWatermark1764520000000,
  MerchantOperatorEdits1764540000000,
  ClickRollupAudienceSplit1764550000000,
  Conversions1764560000000,
  RoutingMode1764580000000,
  ClickRollupRegionDays1764600000000,
  ClickRollupLinkDeltas1764620000000,
  PlanOperatorEdits1764640000000,
  BrandedDomains1764700000000,
  RedirectRules1764710000000,
  LinkExpiry1764720000000,
  ClickSources1764730000000,
];
