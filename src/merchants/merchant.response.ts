import { ApiProperty } from '@nestjs/swagger';
import { NETWORK_IDS, NetworkId, PRODUCT_CATEGORIES } from './kb/merchant-profile';
import type {
  MerchantCapabilities,
  MerchantMeta,
  MerchantProfile,
  RegionDefaults,
} from './kb/merchant-profile';

class MerchantCapabilitiesResponse implements MerchantCapabilities {
  @ApiProperty() deepLinking: boolean;
  @ApiProperty() appIndexing: boolean;
  @ApiProperty() utmPreservation: boolean;
  @ApiProperty() multiNetworkRouting: boolean;
}

class RegionDefaultsResponse implements RegionDefaults {
  @ApiProperty({ type: String, example: 'USD' }) baseCurrency: RegionDefaults['baseCurrency'];
  @ApiProperty({ description: 'Fallback EPC in USD' }) epcBaseUsd: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) trustScore: number;
}

class MerchantMetaResponse implements MerchantMeta {
  @ApiProperty({ example: '2026-11-22-01', pattern: '^\\d{4}-\\d{2}-\\d{2}-\\d{2}$' })
  version: string;
  @ApiProperty({ format: 'date-time' }) lastUpdated: string;
  @ApiProperty({ minimum: 0, maximum: 100 }) dataConfidenceScore: number;
  @ApiProperty() changelogNotes: string;
}

/** MerchantSummary: the [S] fields, plus the [G] ones where [S] is silent. */
export class MerchantSummaryResponse {
  @ApiProperty({ example: 'amazon' }) merchantId: string;
  @ApiProperty() displayName: string;
  @ApiProperty({ type: [String] }) domains: string[];
  @ApiProperty({ enum: NETWORK_IDS, isArray: true, description: 'Empty for direct programmes' })
  supportedNetworks: NetworkId[];
  @ApiProperty({ minimum: 1 }) regionCount: number;
  @ApiProperty({ minimum: 0, maximum: 100 }) dataConfidenceScore: number;
  @ApiProperty({ format: 'date-time' }) lastUpdated: string;
  @ApiProperty({ enum: ['network', 'direct'] }) programType: MerchantProfile['programType'];
  @ApiProperty({ enum: ['open', 'closed'] }) programStatus: MerchantProfile['programStatus'];
  @ApiProperty({ enum: PRODUCT_CATEGORIES, isArray: true }) categories: string[];
  @ApiProperty({ type: MerchantCapabilitiesResponse }) merchantCapabilities: MerchantCapabilities;
  @ApiProperty({ type: RegionDefaultsResponse }) regionDefaults: RegionDefaults;
  @ApiProperty({ type: MerchantMetaResponse }) meta: MerchantMeta;
}

export class MerchantListResponse {
  @ApiProperty({ type: [MerchantSummaryResponse] }) merchants: MerchantSummaryResponse[];
  @ApiProperty({ minimum: 0, example: 35 }) total: number;
}

export class MerchantDetailResponse {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The full profile: merchantId, displayName, description, domains, programType, programStatus, categories, supportedNetworks, merchantCapabilities, regionDefaults, bannedMarkets, regions (keyed by ISO alpha-2 or GLOBAL: storefront, hostnames, baseCurrency, epcHints, trustScore, preferredNetworks, deepLinkSupported, deepLinkMultiplier, deviceBiases, availabilityFlags, categoryMultipliers, refundRateEstimate, codFactor, passthroughRequired), canonicalization, meta',
  })
  merchant: MerchantProfile;
}

export function toMerchantSummary(profile: MerchantProfile): MerchantSummaryResponse {
  return {
    merchantId: profile.merchantId,
    displayName: profile.displayName,
    domains: profile.domains,
    supportedNetworks: profile.supportedNetworks,
    regionCount: Object.keys(profile.regions).length,
    dataConfidenceScore: profile.meta.dataConfidenceScore,
    lastUpdated: profile.meta.lastUpdated,
    programType: profile.programType,
    programStatus: profile.programStatus,
    categories: profile.categories,
    merchantCapabilities: profile.merchantCapabilities,
    regionDefaults: profile.regionDefaults,
    meta: profile.meta,
  };
}
