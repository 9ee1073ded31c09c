import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { encodeClickRecord } from '../analytics/click-record-codec';
import { SystemClock } from '../common/clock';
import { ClickSpool } from './click-spool';
import { encodeSpoolLine, parseSegment, SPOOL_SEGMENT_HEADER } from './click-spool-format';

const record = (n: number): string =>
  encodeClickRecord({
    recordId: `01JD00000000000000000000${String(n).padStart(2, '0')}`,
    clickedAt: '2026-11-25T00:00:00.000Z',
    linkId: 'link-1',
    creatorId: 'creator-1',
    merchantId: null,
    region: null,
    networkId: null,
    preset: 'default',
    outcome: 'passthrough',
    normalizedEpcUsd: 0,
    confidence: 1,
    deepLinkUsed: false,
    privateDealApplied: false,
    visitorCountry: null,
    deviceClass: 'desktop',
    environment: 'live',
    ruleIndex: null,
    source: 'link',
  });
const click = (n: number) => ({ record: record(n), visitorHash: `h${n}` });
const LINE_BYTES = Buffer.byteLength(encodeSpoolLine(click(1)));

describe(ClickSpool.name, () => {
  let dir: string;
  const spools: ClickSpool[] = [];
  const open = async (maxBytes = 1_000_000): Promise<ClickSpool> => {
    const spool = new ClickSpool({ dir, maxBytes, replays: true }, new SystemClock());
    await spool.onModuleInit();
    spools.push(spool);
    return spool;
  };
  const segmentFiles = () => fs.readdirSync(dir).sort();
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'click-spool-'));
  });
  afterEach(async () => {
    for (const spool of spools.splice(0)) await spool.onApplicationShutdown();
    fs.rmSync(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('should write the clicks of one turn as one batch, answering each once on disk', async () => {
    const spool = await open();
    let syncs = 0;
    const openFile = fs.promises.open;
    jest.spyOn(fs.promises, 'open').mockImplementation(async (...args) => {
      const handle = await openFile(...args);
      const datasync = handle.datasync.bind(handle);
      handle.datasync = () => {
        syncs++;
        return datasync();
      };
      return handle;
    });

    const answers = await Promise.all([1, 2, 3].map((n) => spool.append(click(n))));

    expect(answers).toEqual([true, true, true]);
    // The new segment's header, then the three clicks together.
    expect(syncs).toBe(2);
    expect(segmentFiles()).toHaveLength(1);
    const text = read(segmentFiles()[0]);
    expect(text).toBe(
      SPOOL_SEGMENT_HEADER + [1, 2, 3].map((n) => encodeSpoolLine(click(n))).join(''),
    );
    expect(spool.status()).toEqual({
      clicks: 3,
      bytes: Buffer.byteLength(text),
      droppedClicks: 0,
    });
  });

  it('should keep the oldest when full: later clicks are dropped, counted and logged', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const cap = Buffer.byteLength(SPOOL_SEGMENT_HEADER) + 2 * LINE_BYTES;
    const spool = await open(cap);

    expect(await spool.append(click(1))).toBe(true);
    expect(await spool.append(click(2))).toBe(true);
    expect(await Promise.all([3, 4, 5].map((n) => spool.append(click(n))))).toEqual([
      false,
      false,
      false,
    ]);

    expect(parseSegment(read(segmentFiles()[0])).clicks.map((c) => c.record)).toEqual([
      record(1),
      record(2),
    ]);
    expect(spool.status()).toMatchObject({ clicks: 2, droppedClicks: 3 });
    // Throttled: one line for the three, the next one says how many it left out.
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/Click spool full .*CLICK_SPOOL_MAX_BYTES/);
  });

  it('should seal the segment being written: later clicks go to a new one, the sealed one is replayable', async () => {
    const spool = await open();
    await spool.append(click(1));
    await spool.sealActiveSegment();
    const [sealed] = segmentFiles();
    const pending = spool.append(click(2));

    expect(await spool.replayableSegments()).toEqual([sealed]);
    await pending;
    expect(segmentFiles()).toHaveLength(2);
    expect(await spool.replayableSegments()).toEqual([sealed]);

    await spool.removeSegment(sealed, 1);
    expect(segmentFiles()).toHaveLength(1);
    expect(spool.status().clicks).toBe(1);
  });

  it('should take over what a previous run left, counting it against the cap', async () => {
    const first = await open();
    await first.append(click(1));
    await first.append(click(2));
    await first.onApplicationShutdown();
    const onDisk = first.status().bytes;

    const next = await open();

    expect(next.status()).toEqual({ clicks: 2, bytes: onDisk, droppedClicks: 0 });
    expect(await next.replayableSegments()).toEqual(segmentFiles());
  });

  it('should leave the segments of another live writer alone', async () => {
    fs.writeFileSync(
      path.join(dir, `clicks-000000000000001-${process.ppid}-0.spool`),
      SPOOL_SEGMENT_HEADER,
    );
    const spool = await open();
    expect(await spool.replayableSegments()).toEqual([]);
  });
});
