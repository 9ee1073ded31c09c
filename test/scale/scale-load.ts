import * as http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * The traffic of `npm run test:scale`: open-loop redirects at a fixed rate from many visitor
 * addresses, an API mix per creator, a burst on one key's limit, and probes of how fast an
 * edit reaches every node. Every request is a fresh connection from a loopback address of its
 * own kind (127.1/16 visitors, 127.2/16 API callers, 127.3/16 probes), so HAProxy sees, and
 * forwards, a real client address, and no address ever meets its own window.
 */

const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

export interface Answer {
  /** 0: no answer (connection refused, reset, timed out). */
  status: number;
  body: unknown;
  location: string | null;
  servedBy: string | null;
  retryAfter: string | null;
}

const NO_ANSWER: Answer = {
  status: 0,
  body: null,
  location: null,
  servedBy: null,
  retryAfter: null,
};

/** One request on a connection of its own from `localAddress`. */
export function send(
  port: number,
  method: string,
  path: string,
  {
    localAddress,
    headers = {},
    body,
    timeoutMs = 15_000,
  }: {
    localAddress: string;
    headers?: Record<string, string>;
    body?: unknown;
    timeoutMs?: number;
  },
): Promise<Answer> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress,
        agent: false,
        timeout: timeoutMs,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          if ((response.headers['content-type'] ?? '').includes('json')) {
            try {
              parsed = JSON.parse(text);
            } catch {
              // Kept as text.
            }
          }
          resolve({
            status: response.statusCode ?? 0,
            body: parsed,
            location: response.headers.location ?? null,
            servedBy: (response.headers['x-served-by'] as string | undefined) ?? null,
            retryAfter: response.headers['retry-after'] ?? null,
          });
        });
        response.on('error', () => resolve(NO_ANSWER));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', () => resolve(NO_ANSWER));
    request.end(payload);
  });
}

/** Loopback addresses of one kind: `127.<kind>.<1..250>.<1..250>`. */
export function loopbackAddress(kind: 1 | 2 | 3, n: number): string {
  const i = n % (250 * 250);
  return `127.${kind}.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
}

/** A small deterministic generator (mulberry32), so a run's choices can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RedirectLink {
  linkId: string;
  creatorId: string;
}

export interface RedirectTally {
  sent: number;
  byStatus: Record<string, number>;
  /** 302s per creator: what each creator's counted clicks must match. */
  redirectsByCreator: Map<string, number>;
  servedBy: Record<string, number>;
  /** Requests sent and not answered yet, now. */
  outstanding: number;
  slowestMs: number;
}

/**
 * Visits at `perSecond`, due on a fixed schedule whatever the answers do (open loop), each a
 * browser from one of `visitors` addresses on a link drawn at random, until `until` settles.
 */
export async function driveRedirects(
  port: number,
  links: RedirectLink[],
  { perSecond, visitors, until }: { perSecond: number; visitors: number; until: Promise<void> },
  tally: RedirectTally,
): Promise<void> {
  const random = seededRandom(28);
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  void until.then(() => (stopped = true));
  const startedAt = performance.now();
  const visit = async (): Promise<void> => {
    const link = links[Math.floor(random() * links.length)];
    const sentAt = performance.now();
    tally.outstanding++;
    const answer = await send(port, 'GET', `/r/${link.linkId}`, {
      localAddress: loopbackAddress(1, Math.floor(random() * visitors)),
      headers: { 'user-agent': BROWSER_UA },
    });
    tally.outstanding--;
    tally.slowestMs = Math.max(tally.slowestMs, performance.now() - sentAt);
    tally.byStatus[answer.status] = (tally.byStatus[answer.status] ?? 0) + 1;
    if (answer.servedBy !== null) {
      tally.servedBy[answer.servedBy] = (tally.servedBy[answer.servedBy] ?? 0) + 1;
    }
    if (answer.status === 302) {
      tally.redirectsByCreator.set(
        link.creatorId,
        (tally.redirectsByCreator.get(link.creatorId) ?? 0) + 1,
      );
    }
  };
  while (!stopped) {
    const due = Math.floor(((performance.now() - startedAt) / 1000) * perSecond);
    while (tally.sent < due) {
      tally.sent++;
      const pending = visit();
      inFlight.add(pending);
      void pending.then(() => inFlight.delete(pending));
    }
    await delay(10);
  }
  await Promise.all(inFlight);
}

export function emptyRedirectTally(): RedirectTally {
  return {
    sent: 0,
    byStatus: {},
    redirectsByCreator: new Map(),
    servedBy: {},
    outstanding: 0,
    slowestMs: 0,
  };
}

/**
 * One edit, and what each node served after it. A visit's answer comes some time after it was
 * sent (a busy machine: hundreds of milliseconds), so what a node serves is judged by when the
 * visit was sent: `staleUntilMs` is the latest a visit sent after the edit still got the old
 * campaign (null: none did), `freshFromMs` the first sent that got the new one (null: none
 * within 5 s). "Served within 1 s" means no visit sent a second after the edit got the old one.
 */
export interface EditProbe {
  via: string;
  nodes: Record<string, { staleUntilMs: number | null; freshFromMs: number | null }>;
  /** The probe's own 302s (counted clicks of the link's creator, added to the tally's). */
  redirects: number;
}

const PROBE_GIVE_UP_MS = 5_000;
let probeVisits = 0;

/**
 * Edits the link's utm_campaign through node `via` (straight to it, not through HAProxy),
 * then visits the link on every node in `nodes`, each visit from a fresh address, until that
 * node's 302 carries the new campaign.
 */
export async function probeEdit(
  via: { name: string; port: number },
  nodes: { name: string; port: number }[],
  link: RedirectLink & { apiKey: string; campaign: string },
  tally: RedirectTally,
): Promise<EditProbe> {
  const { linkId, apiKey, campaign } = link;
  const edited = await send(via.port, 'PATCH', `/v1/links/${linkId}`, {
    localAddress: '127.0.0.1',
    headers: { authorization: `Bearer ${apiKey}` },
    body: { utmOverride: { utm_campaign: campaign } },
  });
  if (edited.status !== 200) throw new Error(`probe edit through ${via.name}: ${edited.status}`);
  const editedAt = performance.now();
  let redirects = 0;
  const seen: EditProbe['nodes'] = {};
  await Promise.all(
    nodes.map(async (node) => {
      const verdict: EditProbe['nodes'][string] = { staleUntilMs: null, freshFromMs: null };
      seen[node.name] = verdict;
      while (performance.now() - editedAt < PROBE_GIVE_UP_MS) {
        const sentAtMs = Math.round(performance.now() - editedAt);
        tally.outstanding++;
        const answer = await send(node.port, 'GET', `/r/${linkId}`, {
          localAddress: loopbackAddress(3, ++probeVisits),
          headers: { 'user-agent': BROWSER_UA },
        });
        tally.outstanding--;
        if (answer.status === 302) {
          redirects++;
          tally.redirectsByCreator.set(
            link.creatorId,
            (tally.redirectsByCreator.get(link.creatorId) ?? 0) + 1,
          );
        }
        if (answer.location?.includes(`utm_campaign=${campaign}`) === true) {
          verdict.freshFromMs = sentAtMs;
          return;
        }
        if (answer.status === 302) verdict.staleUntilMs = sentAtMs;
        await delay(20);
      }
    }),
  );
  return { via: via.name, nodes: seen, redirects };
}

/** `count` GETs of one key through HAProxy, `concurrency` at a time, by status and node. */
export async function burstOnOneKey(
  port: number,
  apiKey: string,
  { count, concurrency }: { count: number; concurrency: number },
): Promise<{
  byStatus: Record<string, number>;
  servedBy: Record<string, number>;
  /** Status by node: `app1 200`. */
  byNodeAndStatus: Record<string, number>;
}> {
  const byStatus: Record<string, number> = {};
  const servedBy: Record<string, number> = {};
  const byNodeAndStatus: Record<string, number> = {};
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const answer = await send(port, 'GET', '/v1/links?limit=1', {
        localAddress: loopbackAddress(2, 200),
        headers: { authorization: `Bearer ${apiKey}` },
      });
      byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      if (answer.servedBy !== null) {
        servedBy[answer.servedBy] = (servedBy[answer.servedBy] ?? 0) + 1;
      }
      const nodeStatus = `${answer.servedBy ?? 'haproxy'} ${answer.status}`;
      byNodeAndStatus[nodeStatus] = (byNodeAndStatus[nodeStatus] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { byStatus, servedBy, byNodeAndStatus };
}
