// The routing engine's public surface: pure functions over plain data (docs/design.md section 3;
// the model: docs/routing.md).
export { decideRoute } from './decide-route';
export { isNetworkAvailable } from './list-candidates';
export { regionForMarket, resolveMarket, type MarketRegions } from './select-regions';
export { PRESET_UTM, PRESET_WEIGHTS, type SignalWeights } from './presets';
export {
  CONFIDENCE_MAX,
  CONFIDENCE_MIN,
  computeConfidence,
  confidencePercent,
  type ConfidenceBreakdown,
} from './confidence';
export * from './routing-types';
export { visitorRoutingKey } from './visitor-routing-key';
export { decisionKey, sharedDecisionKey } from './decision-key';
export { isPinActive } from './pick-winner';
export {
  toAffiliateIds,
  toLinkRoutingInput,
  type AffiliateIds,
  type RoutableLink,
} from './link-routing-input';
