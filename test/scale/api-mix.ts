import { setTimeout as delay } from 'node:timers/promises';
import { Answer, loopbackAddress, seededRandom, send } from './scale-load';

/**
 * Each API creator's calls through HAProxy, one at a time at a steady pace: creates (with an
 * Idempotency-Key, retried with it when the answer is lost), edits, deletes, reads and
 * analytics. Every link answered 201 is tracked with its last edit answered 200, so the run
 * can read them all back afterwards; an edit or delete whose answer was lost is remembered as
 * possible, not as done.
 */

export interface ApiCreator {
  creatorId: string;
  apiKey: string;
  /** Links it had before the run (the redirects' links): analytics reads name them. */
  seededLinkIds: string[];
}

interface TrackedLink {
  linkId: string;
  creator: ApiCreator;
  /** The utm_campaign of the last edit answered 200 (null: never edited). */
  lastEdit: string | null;
  /** Edits sent after it whose answers were lost: any of them may have been applied. */
  possibleEdits: string[];
  deleted: 'no' | 'yes' | 'maybe';
  /** A call on it is under way (one at a time per link, so "last" is well defined). */
  busy: boolean;
}

export type ApiOperation =
  | 'create'
  | 'edit'
  | 'delete'
  | 'read'
  | 'list'
  | 'analytics_summary'
  | 'analytics_timeseries'
  | 'analytics_clicks'
  | 'analytics_link';

const WEIGHTS: [ApiOperation, number][] = [
  ['create', 18],
  ['edit', 22],
  ['delete', 5],
  ['read', 15],
  ['list', 10],
  ['analytics_summary', 8],
  ['analytics_timeseries', 8],
  ['analytics_clicks', 7],
  ['analytics_link', 7],
];

export interface ApiTally {
  /** Final statuses by operation (0: no answer), after a read's one retry past a 503. */
  statuses: Record<ApiOperation, Record<string, number>>;
  links: TrackedLink[];
  /** Creates whose outcome stayed unknown after their retries. */
  unknownCreates: number;
  /** Reads of a link (through any node) that did not show its own last edit. */
  staleReads: { linkId: string; expected: string | null; got: unknown }[];
  /** Calls sent and not answered yet, now. */
  outstanding: number;
  /** Every answer 5xx or none: when (ms since the tally began), which call, which node, why. */
  failures: {
    atMs: number;
    operation: ApiOperation;
    status: number;
    code: string | null;
    servedBy: string | null;
    /** A 503 with Retry-After to a read is asked again once after it, as clients should. */
    retriedStatus: number | null;
  }[];
  startedAt: number;
}

export function emptyApiTally(): ApiTally {
  return {
    statuses: Object.fromEntries(
      WEIGHTS.map(([operation]) => [operation, {}]),
    ) as ApiTally['statuses'],
    links: [],
    unknownCreates: 0,
    staleReads: [],
    outstanding: 0,
    failures: [],
    startedAt: Date.now(),
  };
}

const ASIN_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export async function driveApiMix(
  port: number,
  creators: ApiCreator[],
  { perSecondEach, until }: { perSecondEach: number; until: Promise<void> },
  tally: ApiTally,
): Promise<void> {
  let stopped = false;
  void until.then(() => (stopped = true));
  let sequence = 0;
  const total = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

  const runCreator = async (creator: ApiCreator, index: number): Promise<void> => {
    const random = seededRandom(1000 + index);
    const localAddress = loopbackAddress(2, index + 1);
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers = {},
    ): Promise<Answer> => {
      const once = async (): Promise<Answer> => {
        tally.outstanding++;
        try {
          return await send(port, method, path, {
            localAddress,
            headers: { authorization: `Bearer ${creator.apiKey}`, ...headers },
            body,
          });
        } finally {
          tally.outstanding--;
        }
      };
      const answer = await once();
      if (answer.status === 0 || answer.status >= 500) {
        const failure = {
          atMs: Date.now() - tally.startedAt,
          operation: operationOf(method, path),
          status: answer.status,
          code: errorCodeOf(answer.body),
          servedBy: answer.servedBy,
          retriedStatus: null as number | null,
        };
        tally.failures.push(failure);
        if (method === 'GET' && answer.status === 503 && answer.retryAfter !== null) {
          await delay(Number(answer.retryAfter) * 1000);
          const again = await once();
          failure.retriedStatus = again.status;
          return again;
        }
      }
      return answer;
    };
    const count = (operation: ApiOperation, answer: Answer): void => {
      const statuses = tally.statuses[operation];
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    };
    const pickLink = (): TrackedLink | undefined => {
      const candidates = tally.links.filter(
        (link) => link.creator === creator && !link.busy && link.deleted === 'no',
      );
      return candidates[Math.floor(random() * candidates.length)];
    };

    const operations: Record<ApiOperation, () => Promise<void>> = {
      create: async () => {
        const n = ++sequence;
        const asin = `B0${Array.from({ length: 8 }, () => ASIN_ALPHABET[Math.floor(random() * 36)]).join('')}`;
        const body = { originalUrl: `https://www.amazon.com/dp/${asin}?scale=${n}` };
        const key = { 'idempotency-key': `scale-create-${creator.creatorId}-${n}` };
        for (let attempt = 0; attempt < 6; attempt++) {
          const answer = await call('POST', '/v1/links', body, key);
          count('create', answer);
          if (answer.status === 201) {
            const { linkId } = (answer.body as { data: { link: { linkId: string } } }).data.link;
            tally.links.push({
              linkId,
              creator,
              lastEdit: null,
              possibleEdits: [],
              deleted: 'no',
              busy: false,
            });
            return;
          }
          // Lost (0), a node failing (5xx) or the first attempt still running (409): again,
          // with the same key, so at most one link is made.
          if (answer.status !== 0 && answer.status < 500 && answer.status !== 409) return;
          await delay(500);
        }
        tally.unknownCreates++;
      },
      edit: async () => {
        const link = pickLink();
        if (link === undefined) return;
        link.busy = true;
        const campaign = `edit-${++sequence}`;
        const answer = await call('PATCH', `/v1/links/${link.linkId}`, {
          utmOverride: { utm_campaign: campaign },
        });
        count('edit', answer);
        if (answer.status === 200) {
          link.lastEdit = campaign;
          link.possibleEdits = [];
        } else if (answer.status === 0 || answer.status >= 500) {
          link.possibleEdits.push(campaign);
        }
        link.busy = false;
      },
      delete: async () => {
        const link = pickLink();
        if (link === undefined) return;
        link.busy = true;
        const answer = await call('DELETE', `/v1/links/${link.linkId}`);
        count('delete', answer);
        if (answer.status === 200) link.deleted = 'yes';
        else if (answer.status === 0 || answer.status >= 500) link.deleted = 'maybe';
        link.busy = false;
      },
      read: async () => {
        const link = pickLink();
        if (link === undefined) return;
        link.busy = true;
        const answer = await call('GET', `/v1/links/${link.linkId}`);
        count('read', answer);
        if (answer.status === 200 && link.possibleEdits.length === 0) {
          const got = campaignOf(answer.body);
          if (got !== link.lastEdit) {
            tally.staleReads.push({ linkId: link.linkId, expected: link.lastEdit, got });
          }
        }
        link.busy = false;
      },
      list: async () => {
        count('list', await call('GET', '/v1/links?limit=20'));
      },
      analytics_summary: async () => {
        count('analytics_summary', await call('GET', '/v1/analytics/summary'));
      },
      analytics_timeseries: async () => {
        count(
          'analytics_timeseries',
          await call('GET', '/v1/analytics/timeseries?interval=hour&groupBy=network'),
        );
      },
      analytics_clicks: async () => {
        count('analytics_clicks', await call('GET', '/v1/analytics/clicks?limit=20'));
      },
      analytics_link: async () => {
        const linkId = creator.seededLinkIds[Math.floor(random() * creator.seededLinkIds.length)];
        count('analytics_link', await call('GET', `/v1/analytics/links/${linkId}`));
      },
    };

    const intervalMs = 1000 / perSecondEach;
    let next = performance.now();
    while (!stopped) {
      let roll = random() * total;
      const [operation] = WEIGHTS.find(([, weight]) => (roll -= weight) < 0) ?? WEIGHTS[0];
      await operations[operation]();
      next += intervalMs;
      await delay(Math.max(0, next - performance.now()));
    }
  };

  await Promise.all(creators.map(runCreator));
}

/** The utm_campaign a link answer carries (null when it has no override). */
export function campaignOf(body: unknown): string | null {
  const link = (body as { data?: { link?: { utmOverride?: { utm_campaign?: string } } } }).data
    ?.link;
  return link?.utmOverride?.utm_campaign ?? null;
}

/** Which operation of the mix a call is, from its method and path. */
function operationOf(method: string, path: string): ApiOperation {
  if (path.startsWith('/v1/analytics/summary')) return 'analytics_summary';
  if (path.startsWith('/v1/analytics/timeseries')) return 'analytics_timeseries';
  if (path.startsWith('/v1/analytics/clicks')) return 'analytics_clicks';
  if (path.startsWith('/v1/analytics/links/')) return 'analytics_link';
  if (method === 'POST') return 'create';
  if (method === 'PATCH') return 'edit';
  if (method === 'DELETE') return 'delete';
  return path.startsWith('/v1/links?') ? 'list' : 'read';
}

/** The error envelope's code, if the answer has one. */
function errorCodeOf(body: unknown): string | null {
  return (body as { error?: { code?: string } } | null)?.error?.code ?? null;
}
