import * as fc from 'fast-check';
import {
  ClickRecordMessage,
  ClickRecordTemplate,
  decodeClickRecord,
  PerClickFields,
  encodeClickRecord,
} from './click-record-codec';
import { CLICK_SOURCES } from './click-source';

const recordArb: fc.Arbitrary<ClickRecordMessage> = fc.record({
  recordId: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  clickedAt: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  linkId: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  creatorId: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  merchantId: fc.option(fc.constantFrom('amazon', 'asos'), { nil: null }),
  region: fc.option(fc.constantFrom('US', 'IN', 'GLOBAL'), { nil: null }),
  networkId: fc.option(fc.constantFrom('awin' as const, 'amazon_associates' as const), {
    nil: null,
  }),
  preset: fc.constantFrom('default' as const, 'link_in_bio' as const, 'long_form' as const),
  outcome: fc.constantFrom('routed' as const, 'fallback' as const, 'passthrough' as const),
  normalizedEpcUsd: fc.double({ min: 0, max: 10, noNaN: true }),
  confidence: fc.double({ min: 0, max: 1.1, noNaN: true }),
  deepLinkUsed: fc.boolean(),
  privateDealApplied: fc.boolean(),
  visitorCountry: fc.option(fc.constantFrom('US', 'IN'), { nil: null }),
  deviceClass: fc.constantFrom(
    'desktop' as const,
    'mobile' as const,
    'tablet' as const,
    'unknown' as const,
  ),
  environment: fc.constantFrom('live' as const, 'test' as const),
  ruleIndex: fc.option(fc.integer({ min: 0, max: 19 }), { nil: null }),
  source: fc.constantFrom(...CLICK_SOURCES),
});

describe(encodeClickRecord.name, () => {
  it('should decode to the record it encoded', () => {
    fc.assert(
      fc.property(recordArb, (record) =>
        expect(decodeClickRecord(encodeClickRecord(record))).toEqual(record),
      ),
    );
  });

  it('should be smaller than the same record as a JSON object', () => {
    fc.assert(
      fc.property(recordArb, (record) =>
        expect(encodeClickRecord(record).length).toBeLessThan(JSON.stringify(record).length),
      ),
    );
  });
});

describe(decodeClickRecord.name, () => {
  it('should read an entry written before the environment field as a live click', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const older: unknown[] = JSON.parse(encodeClickRecord(record));
        older.splice(-3);
        expect(decodeClickRecord(JSON.stringify(older))).toEqual({
          ...record,
          environment: 'live',
          ruleIndex: null,
          source: 'link',
        });
      }),
    );
  });

  it('should read an entry written before the ruleIndex field as a click no rule picked', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const older: unknown[] = JSON.parse(encodeClickRecord(record));
        older.splice(-2);
        expect(decodeClickRecord(JSON.stringify(older))).toEqual({
          ...record,
          ruleIndex: null,
          source: 'link',
        });
      }),
    );
  });

  it('should read an entry written before the source field as a click of the link', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const older: unknown[] = JSON.parse(encodeClickRecord(record));
        older.pop();
        expect(decodeClickRecord(JSON.stringify(older))).toEqual({ ...record, source: 'link' });
      }),
    );
  });

  it.each([
    ['{}'],
    ['[1,2]'],
    ['not json'],
    ['[null,null,null,null,null,null,null,null,null,null,null,null,null,null,null]'],
  ])('should refuse %s', (payload) => {
    expect(() => decodeClickRecord(payload)).toThrow();
  });
});

/** What every click of one link on one route stores alike. */
function sharedFieldsOf(
  record: ClickRecordMessage,
): Omit<ClickRecordMessage, keyof PerClickFields> {
  const {
    recordId: _recordId,
    clickedAt: _clickedAt,
    visitorCountry: _visitorCountry,
    deviceClass: _deviceClass,
    source: _source,
    ...shared
  } = record;
  return shared;
}

describe(ClickRecordTemplate.name, () => {
  it('should encode the same bytes as encodeClickRecord', () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const { recordId, clickedAt, visitorCountry, deviceClass, source } = record;
        const template = new ClickRecordTemplate(sharedFieldsOf(record));
        expect(template.encode({ recordId, clickedAt, visitorCountry, deviceClass, source })).toBe(
          encodeClickRecord(record),
        );
      }),
    );
  });

  it('should encode each click with its own values when one template serves many', () => {
    fc.assert(
      fc.property(
        recordArb,
        fc.array(recordArb, { minLength: 2, maxLength: 5 }),
        (first, others) => {
          const template = new ClickRecordTemplate(sharedFieldsOf(first));
          for (const other of others) {
            const click = {
              recordId: other.recordId,
              clickedAt: other.clickedAt,
              visitorCountry: other.visitorCountry,
              deviceClass: other.deviceClass,
              source: other.source,
            };
            expect(decodeClickRecord(template.encode(click))).toEqual({ ...first, ...click });
          }
        },
      ),
    );
  });
});
