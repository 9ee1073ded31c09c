import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NETWORK_IDS, NetworkId } from '../networks/network-ids';
import { SIGNAL_NAMES } from './engine/routing-types';

/** Learned routing: one candidate's hint, observations and their blend (docs/routing.md section 10). */
export class TraceLearnedEpcResponse {
  @ApiProperty({ description: 'The EPC hint in USD per click (hint / FX rate)' })
  hintEpcUsd: number;
  @ApiProperty({ description: "The creator's counted clicks on the route in the trailing window" })
  clicks: number;
  @ApiProperty({ description: 'Commission in USD attributed to those clicks, net of reversals' })
  commissionUsd: number;
  @ApiProperty({
    description:
      '(k × hintEpcUsd + commissionUsd) / (k + clicks): the epc_base the route scored with',
  })
  blendedEpcUsd: number;
  @ApiProperty({
    minimum: 0,
    maximum: 1,
    description: "The observed figure's share of the blend: clicks / (k + clicks)",
  })
  weight: number;
}

/** Present when the creator routes `learned`. */
export class TraceLearningResponse {
  @ApiProperty({ enum: ['learned'] }) mode: 'learned';
  @ApiProperty({ description: 'k: the clicks each hint is worth in its blend' })
  priorClicks: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Share of visitors who explore' })
  explorationShare: number;
  @ApiProperty({ description: "The visitor's exploration lane chose this route over the best" })
  isExploration: boolean;
}

export class TraceRouteResponse {
  @ApiProperty() merchantId: string;
  @ApiProperty({ enum: NETWORK_IDS }) networkId: NetworkId;
  @ApiProperty() region: string;
  @ApiProperty({ description: 'finalScore: USD per click, confidence-weighted' })
  routeScore: number;
  @ApiProperty({ description: 'intermediateScore in USD' }) normalizedEpcUsd: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) confidence: number;
  @ApiPropertyOptional({
    type: TraceLearnedEpcResponse,
    description: 'Learned routing only: the blend behind epc_base',
  })
  learning?: TraceLearnedEpcResponse;
}

export class TraceAlternativeResponse extends TraceRouteResponse {
  @ApiProperty({ example: 'scored 0.41 USD below the winner' }) whyNotChosen: string;
}

export class TraceExclusionResponse {
  @ApiProperty() region: string;
  @ApiProperty({ enum: NETWORK_IDS, nullable: true }) networkId: NetworkId | null;
  @ApiProperty({ example: 'EPC hint is 0 in IN' }) reason: string;
}

export class RoutingSignalResponse {
  @ApiProperty({ enum: SIGNAL_NAMES }) name: string;
  @ApiProperty() value: number;
  @ApiProperty({
    description: 'Exponent of the preset (epc_base is the base, fx is informational)',
  })
  weight: number;
  @ApiProperty() label: string;
  @ApiProperty({ enum: ['essential', 'enrichment', 'creator'] }) source: string;
}

export class ScoringFormulaResponse {
  @ApiProperty() intermediateScore: number;
  @ApiProperty({ minimum: 0.65, maximum: 1.1 }) confidenceFactor: number;
  @ApiProperty() finalScore: number;
}

/** The [G] crcTrace, plus `excluded` and the context the route was chosen for. */
export class RoutingTraceResponse {
  @ApiProperty({ type: TraceRouteResponse, nullable: true }) winner: TraceRouteResponse | null;
  @ApiProperty({ type: [TraceAlternativeResponse] }) alternatives: TraceAlternativeResponse[];
  @ApiProperty({ type: [TraceExclusionResponse] }) excluded: TraceExclusionResponse[];
  @ApiProperty({ type: [RoutingSignalResponse] }) signals: RoutingSignalResponse[];
  @ApiProperty({ type: ScoringFormulaResponse, nullable: true })
  scoringFormula: ScoringFormulaResponse | null;
  @ApiProperty() preset: string;
  @ApiPropertyOptional({ type: String, nullable: true }) market: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true }) regionTier: number | null;
  @ApiPropertyOptional({ type: Object, nullable: true }) networkOverride: unknown;
  @ApiPropertyOptional({ type: TraceLearningResponse }) learning?: TraceLearningResponse;
}
