import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import type { DeviceClass } from './click.entity';

/** One click as the edge records it: the [S] Click record plus country and device class. */
export interface ClickRecordMessage {
  recordId: string;
  clickedAt: string;
  linkId: string;
  creatorId: string;
  merchantId: string | null;
  region: string | null;
  networkId: NetworkId | null;
  preset: RoutingPresetId;
  outcome: RoutingOutcome;
  normalizedEpcUsd: number;
  confidence: number;
  deepLinkUsed: boolean;
  privateDealApplied: boolean;
  visitorCountry: string | null;
  deviceClass: DeviceClass;
}

/**
 * The field order of a stream entry. Entries are JSON arrays, not objects: a click is written
 * on the redirect path, and the field names would double its size. Append new fields at the
 * end; a consumer reading an older entry finds them undefined.
 */
const FIELDS = [
  'recordId',
  'clickedAt',
  'linkId',
  'creatorId',
  'merchantId',
  'region',
  'networkId',
  'preset',
  'outcome',
  'normalizedEpcUsd',
  'confidence',
  'deepLinkUsed',
  'privateDealApplied',
  'visitorCountry',
  'deviceClass',
] as const satisfies readonly (keyof ClickRecordMessage)[];

export function encodeClickRecord(record: ClickRecordMessage): string {
  return JSON.stringify(FIELDS.map((field) => record[field]));
}

/** Throws on anything that is not an entry of this format. */
export function decodeClickRecord(payload: string): ClickRecordMessage {
  const values: unknown = JSON.parse(payload);
  if (!Array.isArray(values) || values.length < FIELDS.length) {
    throw new Error('not a click record entry');
  }
  const record = Object.fromEntries(FIELDS.map((field, i) => [field, values[i]])) as Record<
    string,
    unknown
  >;
  if (typeof record.recordId !== 'string' || typeof record.clickedAt !== 'string') {
    throw new Error('click record entry without id or time');
  }
  return record as unknown as ClickRecordMessage;
}
