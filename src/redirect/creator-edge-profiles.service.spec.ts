import type {
  CreatorEdgeLimits,
  CreatorsService,
  EdgeProfileChange,
} from '../account/creators.service';
import type { AppMetrics } from '../metrics/app-metrics';
import type { NetworkAccountsService } from '../networks/network-accounts.service';
import { CreatorEdgeProfilesService } from './creator-edge-profiles.service';

const A = '01KDVDNA00000000000000000A';
const B = '01KDVDNA00000000000000000B';
const C = '01KDVDNA00000000000000000C';

const PRO = (creatorId: string): CreatorEdgeLimits => ({
  creatorId,
  planId: 'pro',
  edgeClicksPerMinute: 1_000,
  includedClicks: 10_000,
  isHardCap: false,
  routingMode: 'hinted',
  attribution: false,
});

/**
 * The service over a PostgreSQL whose change log answers what the test queues (else an
 * empty log), every creator existing on the Pro plan, and a clock the test moves.
 */
function setUp() {
  const clock = { ms: 1_000_000, nowMs: () => clock.ms };
  const logAnswers: (EdgeProfileChange[] | Error)[] = [];
  const creators = {
    readEdgeProfileChanges: jest.fn((_since: Date | null, _lookBackMs: number) => {
      const answer = logAnswers.shift() ?? [];
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve({ readAt: new Date(clock.ms), changes: answer });
    }),
    readEdgeLimits: jest.fn((creatorIds: string[]) => Promise.resolve(creatorIds.map(PRO))),
    pruneEdgeProfileChanges: jest.fn(() => Promise.resolve()),
  };
  const networkAccounts = { readActiveAffiliateIds: () => Promise.resolve(new Map()) };
  const service = new CreatorEdgeProfilesService(
    creators as unknown as CreatorsService,
    networkAccounts as unknown as NetworkAccountsService,
    clock,
    { countEdgeCacheLookup: () => undefined } as unknown as AppMetrics,
  );
  /** A row of the log, logged now. */
  const change = (id: string, creatorId: string | null): EdgeProfileChange => ({
    id,
    creatorId,
    changedAt: new Date(clock.ms),
  });
  /** The creators each pass read, a list per pass (a click's own read included). */
  const reads = () => creators.readEdgeLimits.mock.calls.map(([creatorIds]) => creatorIds);
  return { service, creators, clock, logAnswers, change, reads };
}

describe(CreatorEdgeProfilesService.name, () => {
  it('should read again only the cached creators the log names, each change once', async () => {
    const { service, logAnswers, change, reads } = setUp();
    await service.find(A);
    await service.find(B);
    logAnswers.push([change('1', A), change('2', C)]);
    await service.refreshChanged();
    // The look-back returns row 1 again: it was acted on already.
    logAnswers.push([change('1', A), change('3', B)]);
    await service.refreshChanged();
    await service.refreshChanged();
    expect(reads()).toEqual([[A], [B], [A], [B]]);
  });

  it('should read every cached creator after a plan change (a row without creator)', async () => {
    const { service, logAnswers, change, reads } = setUp();
    await service.find(A);
    await service.find(B);
    logAnswers.push([change('1', null)]);
    await service.refreshChanged();
    expect(reads().slice(2)).toEqual([[B, A]]);
  });

  it('should not keep a first read that a change logged meanwhile may have missed', async () => {
    const { service, creators, logAnswers, change, reads } = setUp();
    let answer: () => void = () => undefined;
    creators.readEdgeLimits.mockImplementationOnce(
      (creatorIds: string[]) =>
        new Promise((resolve) => (answer = () => resolve(creatorIds.map(() => PRO(A))))),
    );
    const click = service.find(A);
    logAnswers.push([change('1', A)]);
    await service.refreshChanged();
    answer();
    expect(await click).toMatchObject({ creatorId: A });
    await service.find(A);
    expect(reads()).toEqual([[A], [A]]);
  });

  it('should read the log from the last success, and keep a failed pass’s changes', async () => {
    const { service, creators, clock, logAnswers, change, reads } = setUp();
    await service.find(A);
    await service.refreshChanged();
    const firstReadAt = new Date(clock.ms);
    clock.ms += 1_000;
    logAnswers.push(new Error('connection refused'));
    await service.refreshChanged();
    clock.ms += 1_000;
    creators.readEdgeLimits.mockRejectedValueOnce(new Error('connection refused'));
    logAnswers.push([change('1', A)]);
    await service.refreshChanged();
    logAnswers.push([change('1', A)]);
    await service.refreshChanged();
    const sinces = creators.readEdgeProfileChanges.mock.calls.map(([since]) => since);
    expect(sinces).toEqual([null, firstReadAt, firstReadAt, firstReadAt]);
    expect(creators.readEdgeProfileChanges.mock.calls[0][1]).toBe(10_000);
    // The failed read of A, then the one of the retried change.
    expect(reads()).toEqual([[A], [A], [A]]);
  });

  it('should read the creators clicked since the last in-use pass, again after a failure', async () => {
    const { service, logAnswers, reads } = setUp();
    await service.find(A);
    await service.find(B);
    void service.find(A); // clicked again, from memory
    await service.refreshChanged();
    expect(reads()).toEqual([[A], [B]]);
    logAnswers.push(new Error('connection refused'));
    await service.refreshInUse();
    await service.refreshInUse();
    await service.refreshInUse();
    expect(reads()).toEqual([[A], [B], [A]]);
  });

  it('should prune the log at most once per ten minutes', async () => {
    const { service, creators, clock } = setUp();
    await service.refreshChanged();
    clock.ms += 599_000;
    await service.refreshChanged();
    clock.ms += 1_000;
    await service.refreshChanged();
    expect(creators.pruneEdgeProfileChanges.mock.calls).toEqual([[3_600_000], [3_600_000]]);
  });
});
