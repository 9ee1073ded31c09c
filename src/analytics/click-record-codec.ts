import type { KeyEnvironment } from '../common/access/auth-context';
import type { NetworkId } from '../networks/network-ids';
import type { RoutingOutcome, RoutingPresetId } from '../routing/engine/routing-types';
import type { DeviceClass } from './click.entity';
import type { ClickSource } from './click-source';

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
  /** A test link's click: analytics of the test environment only, never the quota. */
  environment: KeyEnvironment;
  /** The redirect rule that picked the destination (docs/redirect-rules.md); null: none. */
  ruleIndex: number | null;
  /** How the visitor came: a QR code scan (`?qr=1`) or the link itself (docs/qr-codes.md). */
  source: ClickSource;
}

/**
 * The fields of a stream entry, in order, with the `clicks` column each one fills, its SQL
 * type, and for fields appended later the value an older entry (without them) stands for.
 * Entries are JSON arrays, not objects: a click is written on the redirect path, and the
 * field names would double its size. Append new fields at the end, with `whenAbsent`.
 */
export const CLICK_RECORD_FIELDS = [
  { field: 'recordId', column: 'record_id', sqlType: 'varchar' },
  { field: 'clickedAt', column: 'clicked_at', sqlType: 'timestamptz' },
  { field: 'linkId', column: 'link_id', sqlType: 'varchar' },
  { field: 'creatorId', column: 'creator_id', sqlType: 'varchar' },
  { field: 'merchantId', column: 'merchant_id', sqlType: 'varchar' },
  { field: 'region', column: 'region', sqlType: 'varchar' },
  { field: 'networkId', column: 'network_id', sqlType: 'varchar' },
  { field: 'preset', column: 'preset', sqlType: 'varchar' },
  { field: 'outcome', column: 'outcome', sqlType: 'varchar' },
  { field: 'normalizedEpcUsd', column: 'normalized_epc_usd', sqlType: 'numeric' },
  { field: 'confidence', column: 'confidence', sqlType: 'numeric' },
  { field: 'deepLinkUsed', column: 'deep_link_used', sqlType: 'boolean' },
  { field: 'privateDealApplied', column: 'private_deal_applied', sqlType: 'boolean' },
  { field: 'visitorCountry', column: 'visitor_country', sqlType: 'char(2)' },
  { field: 'deviceClass', column: 'device_class', sqlType: 'varchar' },
  { field: 'environment', column: 'environment', sqlType: 'varchar', whenAbsent: "'live'" },
  { field: 'ruleIndex', column: 'rule_index', sqlType: 'smallint', whenAbsent: 'NULL' },
  { field: 'source', column: 'source', sqlType: 'varchar', whenAbsent: "'link'" },
] as const satisfies readonly {
  field: keyof ClickRecordMessage;
  column: string;
  sqlType: string;
  /** An SQL literal for entries written before the field existed. */
  whenAbsent?: string;
}[];

/** Fields every entry has; the ones appended later may be missing from older entries. */
const REQUIRED_FIELD_COUNT = CLICK_RECORD_FIELDS.filter((spec) => !('whenAbsent' in spec)).length;

const FIELDS = CLICK_RECORD_FIELDS.map(({ field }) => field);

export function encodeClickRecord(record: ClickRecordMessage): string {
  return JSON.stringify(FIELDS.map((field) => record[field]));
}

/** Throws on anything that is not an entry of this format. */
export function decodeClickRecord(payload: string): ClickRecordMessage {
  const values: unknown = JSON.parse(payload);
  if (!Array.isArray(values) || values.length < REQUIRED_FIELD_COUNT) {
    throw new Error('not a click record entry');
  }
  const record = Object.fromEntries(
    CLICK_RECORD_FIELDS.map((spec, i) => [
      spec.field,
      // A field an older entry lacks (past its end) stands for its SQL literal's value.
      i < values.length || !('whenAbsent' in spec) ? values[i] : valueOfLiteral(spec.whenAbsent),
    ]),
  ) as Record<string, unknown>;
  if (typeof record.recordId !== 'string' || typeof record.clickedAt !== 'string') {
    throw new Error('click record entry without id or time');
  }
  return record as unknown as ClickRecordMessage;
}

/** A `whenAbsent` literal's value: NULL, or a quoted string. */
function valueOfLiteral(literal: string): string | null {
  return literal === 'NULL' ? null : literal.slice(1, -1);
}

/** The fields that differ between clicks of one link on one route. */
export type PerClickFields = Pick<
  ClickRecordMessage,
  'recordId' | 'clickedAt' | 'visitorCountry' | 'deviceClass' | 'source'
>;

const PER_CLICK_FIELDS: ReadonlySet<keyof ClickRecordMessage> = new Set<keyof PerClickFields>([
  'recordId',
  'clickedAt',
  'visitorCountry',
  'deviceClass',
  'source',
]);

/**
 * encodeClickRecord for the many clicks of one link on one route: the fields they share are
 * encoded once, and a click costs the encoding of its own few values and a few string
 * joins (the redirect encodes a record per click; building the whole array and stringifying
 * it was about 5% of the redirect's CPU). The same bytes as encodeClickRecord (a property
 * test holds it): JSON.stringify of an array is its elements' JSON joined with commas.
 */
export class ClickRecordTemplate {
  /** The encoded text around the per-click slots: one more than `slots`. */
  private readonly segments: string[] = [];
  private readonly slots: (keyof PerClickFields)[] = [];

  constructor(shared: Omit<ClickRecordMessage, keyof PerClickFields>) {
    // Each segment's parts are joined once: joined, a segment is one flat string, where
    // concatenation would keep a rope of its parts for the template's life (a template per
    // link and route: tens of thousands in the million-link bench).
    let segment = ['['];
    FIELDS.forEach((field, index) => {
      if (index > 0) segment.push(',');
      if (PER_CLICK_FIELDS.has(field)) {
        this.segments.push(segment.join(''));
        this.slots.push(field as keyof PerClickFields);
        segment = [];
      } else {
        segment.push(JSON.stringify(shared[field as keyof typeof shared]));
      }
    });
    segment.push(']');
    this.segments.push(segment.join(''));
  }

  encode(click: PerClickFields): string {
    let encoded = this.segments[0];
    for (let i = 0; i < this.slots.length; i++) {
      encoded += JSON.stringify(click[this.slots[i]]) + this.segments[i + 1];
    }
    return encoded;
  }
}
