import type { KvStore } from '../kv/kv-store';
import type { LinkEventsService } from '../links/link-events.service';
import type { LinkRoutingRecord } from '../links/link-routing-record';
import type { LinksService } from '../links/links.service';
import type { AppMetrics } from '../metrics/app-metrics';
import { LinkRecordsService } from './link-records.service';

const LINK_ID = '01KDVDNA000000000000000001';

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const recordOf = (version: string): LinkRoutingRecord =>
  ({
    linkId: LINK_ID,
    version,
    originalUrl: 'https://a.test/',
    stored: { routedUrl: '' },
  }) as never;

/** The service over a PostgreSQL whose reads answer when the test says, and an empty Redis. */
function setUp() {
  const reads: { resolve: (record: LinkRoutingRecord | null) => void }[] = [];
  // One read per statement: the service asks for a turn's misses together.
  const findRoutingRecord = jest.fn((): Promise<LinkRoutingRecord | null> => {
    const read = deferred<LinkRoutingRecord | null>();
    reads.push(read);
    return read.promise;
  });
  const links = {
    findRoutingRecord,
    findRoutingRecords: jest.fn(async (linkIds: readonly string[]) => {
      const record = await findRoutingRecord();
      return new Map(record === null ? [] : linkIds.map((linkId) => [linkId, record]));
    }),
  };
  const store = {
    getString: jest.fn(() => Promise.resolve(null)),
    setString: jest.fn(() => Promise.resolve()),
  };
  let changed: (linkId: string) => Promise<void> = () => Promise.resolve();
  const linkEvents = { onChanged: (listener: typeof changed) => (changed = listener) };
  const lookups: string[] = [];
  const metrics = {
    countEdgeCacheLookup: (_cache: string, source: string) => lookups.push(source),
  };
  const service = new LinkRecordsService(
    store as unknown as KvStore,
    links as unknown as LinksService,
    metrics as unknown as AppMetrics,
    { nowMs: () => 0 },
    linkEvents as unknown as LinkEventsService,
  );
  return { service, links, store, reads, lookups, change: (linkId: string) => changed(linkId) };
}

/** Lets the service's awaits (Redis, then the turn's PostgreSQL batch) run. */
const settle = async () => {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe(LinkRecordsService.name, () => {
  it('should read an uncached link once for concurrent clicks, and keep it', async () => {
    const { service, links, store, reads, lookups } = setUp();

    const clicks = [service.find(LINK_ID), service.find(LINK_ID), service.find(LINK_ID)];
    await settle();
    reads[0].resolve(recordOf('v1'));
    const records = await Promise.all(clicks.map((click) => Promise.resolve(click)));

    expect(links.findRoutingRecords).toHaveBeenCalledTimes(1);
    expect(store.getString).toHaveBeenCalledTimes(1);
    expect(records.map((record) => record?.version)).toEqual(['v1', 'v1', 'v1']);
    expect(service.find(LINK_ID)).toMatchObject({ version: 'v1' });
    expect(lookups).toEqual(['database', 'database', 'database', 'memory']);
  });

  it('should read the links missed in one turn with one statement, each with its own record', async () => {
    const { service, links, reads } = setUp();
    const other = '01KDVDNA000000000000000002';

    const clicks = [service.find(LINK_ID), service.find(other)];
    await settle();
    reads[0].resolve(recordOf('v1'));

    expect(links.findRoutingRecords).toHaveBeenCalledTimes(1);
    expect(links.findRoutingRecords).toHaveBeenCalledWith([LINK_ID, other]);
    expect(
      (await Promise.all(clicks.map((click) => Promise.resolve(click)))).map(
        (record) => record?.version,
      ),
    ).toEqual(['v1', 'v1']);
  });

  it('should answer the clicks waiting for a read the link changed during, but not keep it', async () => {
    const { service, links, reads, change } = setUp();

    const before = service.find(LINK_ID);
    await settle();
    await change(LINK_ID);
    const after = service.find(LINK_ID);
    await settle();
    reads[0].resolve(recordOf('old'));
    reads[1].resolve(recordOf('new'));

    expect((await before)?.version).toBe('old');
    expect((await after)?.version).toBe('new');
    expect(links.findRoutingRecords).toHaveBeenCalledTimes(2);
    expect(service.find(LINK_ID)).toMatchObject({ version: 'new' });
  });

  it('should let the next click read again after a failed read', async () => {
    const { service, links } = setUp();
    links.findRoutingRecords.mockRejectedValueOnce(new Error('PostgreSQL down'));

    await expect(service.find(LINK_ID)).rejects.toThrow('PostgreSQL down');
    links.findRoutingRecords.mockResolvedValueOnce(new Map([[LINK_ID, recordOf('v1')]]));

    expect((await service.find(LINK_ID))?.version).toBe('v1');
  });
});
