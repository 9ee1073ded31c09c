import * as fc from 'fast-check';
import { ClickRecordMessage, encodeClickRecord } from '../analytics/click-record-codec';
import {
  encodeSpoolLine,
  parseSegment,
  SegmentParser,
  segmentFileName,
  segmentWriterPid,
  SPOOL_SEGMENT_HEADER,
  SpooledClick,
} from './click-spool-format';

const recordOf = (overrides: Partial<ClickRecordMessage> = {}): string =>
  encodeClickRecord({
    recordId: '01JD0000000000000000000001',
    clickedAt: '2026-11-30T23:59:59.000Z',
    linkId: 'link-1',
    creatorId: 'creator-1',
    merchantId: 'amazon',
    region: 'US',
    networkId: 'amazon_associates',
    preset: 'default',
    outcome: 'routed',
    normalizedEpcUsd: 0.42,
    confidence: 0.9,
    deepLinkUsed: true,
    privateDealApplied: false,
    visitorCountry: 'US',
    deviceClass: 'desktop',
    environment: 'live',
    ruleIndex: null,
    source: 'link',
    ...overrides,
  });

const segmentOf = (...clicks: SpooledClick[]): string =>
  SPOOL_SEGMENT_HEADER + clicks.map(encodeSpoolLine).join('');

describe(parseSegment.name, () => {
  it('should give back each click as spooled, record byte for byte, with its keys', () => {
    const record = recordOf({ visitorCountry: null, merchantId: 'a\tb\n"c"' });
    const parsed = parseSegment(
      segmentOf({ record, visitorHash: 'hash-1' }, { record, visitorHash: null }),
    );

    expect(parsed.clicks).toEqual([
      {
        record,
        visitorHash: 'hash-1',
        creatorId: 'creator-1',
        environment: 'live',
        linkId: 'link-1',
        clickedAtMs: Date.parse('2026-11-30T23:59:59.000Z'),
      },
      expect.objectContaining({ record, visitorHash: null }),
    ]);
    expect(parsed).toMatchObject({ damagedLines: 0, hasTornTail: false });
  });

  it('should share the clicks out per quota counter: creator, environment and billing month', () => {
    const parsed = parseSegment(
      segmentOf(
        { record: recordOf(), visitorHash: null },
        { record: recordOf({ clickedAt: '2026-12-01T00:00:00.000Z' }), visitorHash: null },
        { record: recordOf({ clickedAt: '2026-11-02T00:00:00.000Z' }), visitorHash: null },
        { record: recordOf({ environment: 'test' }), visitorHash: null },
        { record: recordOf({ creatorId: 'creator-2' }), visitorHash: null },
      ),
    );

    const share = (creatorId: string, environment: string, periodId: string, clicks: number) => ({
      creatorId,
      environment,
      periodId,
      periodStart: `${periodId}-01`,
      clicks,
    });
    expect(parsed.quotaShares).toEqual([
      share('creator-1', 'live', '2026-11', 2),
      share('creator-1', 'live', '2026-12', 1),
      share('creator-1', 'test', '2026-11', 1),
      share('creator-2', 'live', '2026-11', 1),
    ]);
  });

  it('should skip a last line cut short by a crash (it was never acknowledged)', () => {
    const whole = encodeSpoolLine({ record: recordOf(), visitorHash: 'h' });
    const parsed = parseSegment(SPOOL_SEGMENT_HEADER + whole + whole.slice(0, 40));

    expect(parsed.clicks).toHaveLength(1);
    expect(parsed).toMatchObject({ damagedLines: 0, hasTornTail: true });
  });

  it('should skip and count lines that are no entry, keeping the others', () => {
    const good = encodeSpoolLine({ record: recordOf(), visitorHash: null });
    const parsed = parseSegment(
      `${SPOOL_SEGMENT_HEADER}${good}no tab here\n\t[1,2]\nh\t${recordOf({ environment: 'x' as never })}\n\n${good}`,
    );

    expect(parsed.clicks).toHaveLength(2);
    expect(parsed.damagedLines).toBe(4);
    expect(parsed.quotaShares).toEqual([expect.objectContaining({ clicks: 2 })]);
  });

  it('should read a file without the header as damaged throughout', () => {
    const line = encodeSpoolLine({ record: recordOf(), visitorHash: null });
    expect(parseSegment(line + line)).toMatchObject({ clicks: [], damagedLines: 2 });
  });

  it('should read an empty segment (header only) as no clicks', () => {
    expect(parseSegment(SPOOL_SEGMENT_HEADER)).toEqual({
      clicks: [],
      quotaShares: [],
      damagedLines: 0,
      hasTornTail: false,
    });
  });
});

describe(SegmentParser.name, () => {
  /** A line of a segment: a click of one of three creators and two months, or no entry. */
  const line = fc.oneof(
    fc
      .record({
        creatorId: fc.constantFrom('creator-1', 'creator-2', 'creator-3'),
        clickedAt: fc.constantFrom('2026-11-30T23:59:59.000Z', '2026-12-01T00:00:00.000Z'),
        visitorHash: fc.option(fc.constantFrom('h1', 'h2'), { nil: null }),
      })
      .map(({ creatorId, clickedAt, visitorHash }) =>
        encodeSpoolLine({ record: recordOf({ creatorId, clickedAt }), visitorHash }),
      ),
    fc.constantFrom('\n', 'no tab here\n', '\t[1,2]\n'),
  );

  it('should give what parseSegment gives, however many lines each slice takes', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(line, { maxLength: 30 }),
        fc.string({ maxLength: 12 }).filter((tail) => !tail.includes('\n')),
        fc.integer({ min: 1, max: 7 }),
        (hasHeader, lines, tail, sliceLines) => {
          const text = (hasHeader ? SPOOL_SEGMENT_HEADER : '') + lines.join('') + tail;
          const parser = new SegmentParser(text);
          let slices = 0;
          while (parser.parseMore(sliceLines)) slices++;

          expect(parser.result()).toEqual(parseSegment(text));
          const linesToParse = hasHeader ? lines.length + (tail === '' ? 0 : 1) : 0;
          expect(slices).toBeLessThanOrEqual(Math.ceil(linesToParse / sliceLines));
        },
      ),
    );
  });
});

describe(segmentFileName.name, () => {
  it('should name segments so they sort by opening time, and carry their writer', () => {
    const names = [
      segmentFileName(1_800_000_000_123, 77, 0),
      segmentFileName(999, 8, 1),
      segmentFileName(1_800_000_000_122, 9, 2),
    ];
    expect([...names].sort()).toEqual([names[1], names[2], names[0]]);
    expect(names.map(segmentWriterPid)).toEqual([77, 8, 9]);
  });

  it.each(['clicks-123-4-5.spool', 'notes.txt', 'clicks-000000000000001-x-0.spool'])(
    'should not take %s for a segment',
    (name) => {
      expect(segmentWriterPid(name)).toBeNull();
    },
  );
});
