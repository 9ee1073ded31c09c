import type { ClickEntity } from './click.entity';
import type { ClickRecordResponse } from './click.response';

export function toClickRecordResponse(click: ClickEntity): ClickRecordResponse {
  return {
    recordId: click.recordId,
    linkId: click.linkId,
    merchantId: click.merchantId,
    region: click.region,
    networkId: click.networkId,
    preset: click.preset,
    outcome: click.outcome,
    normalizedEpcUsd: click.normalizedEpcUsd,
    confidence: click.confidence,
    deepLinkUsed: click.deepLinkUsed,
    privateDealApplied: click.privateDealApplied,
    clickedAt: click.clickedAt.toISOString(),
    visitorCountry: click.visitorCountry,
    deviceClass: click.deviceClass,
    ruleIndex: click.ruleIndex,
    source: click.source,
  };
}
