import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { PlanId } from '../../../src/account/plan.entity';
import { CreatorsService } from '../../../src/account/creators.service';
import { ApiKeysService } from '../../../src/auth/api-keys.service';
import { createCreatorWithKey } from '../../factories/creator.factory';
import { createLink } from '../../factories/link.factory';
import type { HttpTarget } from './wire';

/** An API key the fuzzer can put in a request, printed by its label in counterexamples. */
export class FuzzKey {
  constructor(
    readonly label: string,
    readonly plan: PlanId,
    readonly creatorId: string,
    readonly apiKey: string,
  ) {}

  [fc.toStringMethod](): string {
    return `key(${this.label})`;
  }
}

export interface FuzzFixture {
  /**
   * Enterprise keys that carry most requests. The API admits 600 requests a minute per key
   * (10 for bulk), so a run of 25,000 requests spreads over many keys to keep 429s the
   * exception and let most requests reach validation and the handlers.
   */
  workhorseKeys: FuzzKey[];
  /** Keys refused or limited in their own way: Publisher, Pro, Free, test, allowlisted, revoked. */
  oddKeys: FuzzKey[];
  /** Ids of links made through the API, of several creators (so some belong to another caller). */
  linkIds: string[];
  /** The same links by the creator that owns them (for requests that should find their link). */
  linksByCreator: Record<string, string[]>;
  /**
   * Ids of rows written straight to the table with URLs as they were stored before URLs were
   * serialised (raw Unicode, spaces, a CR LF): the redirect must still write a legal Location.
   */
  legacyLinkIds: string[];
  merchantIds: string[];
}

const ENTERPRISE_CREATORS = 12;
const KEYS_PER_CREATOR = 6;
const LINKS_PER_CREATOR = 2;

/** URLs as an older release stored them: not in their WHATWG serialisation. */
const LEGACY_URLS = [
  'https://shop.example.com/p/café?kw=café€&x=😀',
  'https://shop.example.com/p/a b?q=a b',
  'https://shop.example.com/p/1\r\nSet-Cookie: injected=1',
  'https://shop.example.com/p/\u0085\u009b',
  'https://bücher.example/p/1',
];

export async function createFuzzFixture(
  app: INestApplication,
  http: HttpTarget,
): Promise<FuzzFixture> {
  // One creator after the other: the embedded PGlite runs one session for all connections,
  // and concurrent transactions get mixed up there.
  const workhorseKeys: FuzzKey[] = [];
  for (let i = 0; i < ENTERPRISE_CREATORS; i++) {
    workhorseKeys.push(...(await createEnterpriseKeys(app, i)));
  }
  const oddKeys = await createOddKeys(app);
  const linksByCreator = await createLinks(http, workhorseKeys);
  const legacyLinkIds = await createLegacyLinks(app, workhorseKeys[0].creatorId);
  return {
    workhorseKeys,
    oddKeys,
    linkIds: Object.values(linksByCreator).flat(),
    linksByCreator,
    legacyLinkIds,
    merchantIds: ['amazon', 'asos', 'adidas', 'nike', 'ebay', 'walmart'],
  };
}

async function createEnterpriseKeys(app: INestApplication, index: number): Promise<FuzzKey[]> {
  const creator = await createCreatorWithKey(app, { plan: 'enterprise' });
  const keys = [
    new FuzzKey(`enterprise${index}.0`, 'enterprise', creator.creatorId, creator.apiKey),
  ];
  const { plan } = await app.get(CreatorsService).findWithPlanOrThrow(creator.creatorId);
  for (let k = 1; k < KEYS_PER_CREATOR; k++) {
    const issued = await app.get(ApiKeysService).issue(creator.creatorId, plan, 'live', []);
    keys.push(
      new FuzzKey(`enterprise${index}.${k}`, 'enterprise', creator.creatorId, issued.apiKey),
    );
  }
  return keys;
}

async function createOddKeys(app: INestApplication): Promise<FuzzKey[]> {
  const make = async (
    label: string,
    plan: PlanId,
    options: { environment?: 'live' | 'test'; allowIps?: string[]; revoke?: boolean } = {},
  ): Promise<FuzzKey> => {
    const creator = await createCreatorWithKey(app, { plan, ...options });
    if (options.revoke === true) await app.get(ApiKeysService).revoke(creator.keyId);
    return new FuzzKey(label, plan, creator.creatorId, creator.apiKey);
  };
  return [
    await make('publisher', 'publisher'),
    await make('pro', 'pro'),
    await make('free', 'free'),
    await make('enterprise-test-env', 'enterprise', { environment: 'test' }),
    await make('enterprise-allowlisted', 'enterprise', { allowIps: ['203.0.113.7'] }),
    await make('enterprise-revoked', 'enterprise', { revoke: true }),
  ];
}

/** Links through the API, as a client makes them: a routed Amazon link and a passthrough one. */
async function createLinks(http: HttpTarget, keys: FuzzKey[]): Promise<Record<string, string[]>> {
  const creatorKeys = keys.filter((key) => key.label.endsWith('.0'));
  const bodies = (i: number) => [
    { originalUrl: `https://www.amazon.com/dp/B0FUZZ${String(i).padStart(4, '0')}` },
    { originalUrl: `https://shop.example.com/p/${i}?kw=café€`, title: 'Fuzz fixture' },
  ];
  const created = await Promise.all(
    creatorKeys.map((key, i) =>
      Promise.all(
        bodies(i)
          .slice(0, LINKS_PER_CREATOR)
          .map(async (body) => {
            const answer = await http.send({
              method: 'POST',
              path: '/v1/links',
              headers: {
                authorization: `Bearer ${key.apiKey}`,
                'content-type': 'application/json',
                'x-forwarded-for': `198.18.0.${i + 1}`,
              },
              body: Buffer.from(JSON.stringify(body)),
            });
            if (answer.kind !== 'answer' || answer.status !== 201) {
              throw new Error(`Fixture link not created: ${JSON.stringify(answer)}`);
            }
            return (
              JSON.parse(answer.body.toString('utf8')) as { data: { link: { linkId: string } } }
            ).data.link.linkId;
          }),
      ),
    ),
  );
  return Object.fromEntries(creatorKeys.map((key, i) => [key.creatorId, created[i]]));
}

async function createLegacyLinks(app: INestApplication, creatorId: string): Promise<string[]> {
  const ids: string[] = [];
  for (const url of LEGACY_URLS) {
    const link = await createLink(app, { creatorId, originalUrl: url, routedUrl: url });
    ids.push(link.id);
  }
  return ids;
}

/**
 * What the links table may hold: the rows there before the run plus the links that 2xx
 * answers reported. A refused request must not have written a row (no half-done create
 * behind a 4xx), so after each batch every creator's row count must match.
 */
export class LinkLedger {
  private readonly expected = new Map<string, Set<string>>();

  constructor(private readonly dataSource: DataSource) {}

  /** Reads the current rows of these creators as the starting point. */
  async start(creatorIds: string[]): Promise<void> {
    for (const creatorId of creatorIds) this.expected.set(creatorId, new Set());
    const rows = await this.rowsOf(creatorIds);
    for (const row of rows) this.expected.get(row.creator_id)?.add(row.id);
  }

  /** Takes the table as it is now as the expected state (after a batch that lost answers). */
  async resync(): Promise<void> {
    await this.start([...this.expected.keys()]);
  }

  /** A 2xx answer reported these new links of this creator. */
  accept(creatorId: string, linkIds: string[]): void {
    const known = this.expected.get(creatorId);
    if (known === undefined) return;
    for (const id of linkIds) known.add(id);
  }

  /** Rows no 2xx answer accounts for, per creator; empty when the table is as expected. */
  async strayRows(): Promise<Map<string, string[]>> {
    const creatorIds = [...this.expected.keys()];
    const counts: Array<{ creator_id: string; n: number }> = await this.dataSource.query(
      'SELECT creator_id, count(*)::int AS n FROM links WHERE creator_id = ANY($1) GROUP BY creator_id',
      [creatorIds],
    );
    const suspects = counts
      .filter((row) => row.n !== (this.expected.get(row.creator_id)?.size ?? 0))
      .map((row) => row.creator_id);
    const strays = new Map<string, string[]>();
    if (suspects.length === 0) return strays;
    for (const row of await this.rowsOf(suspects)) {
      if (this.expected.get(row.creator_id)?.has(row.id) === true) continue;
      strays.set(row.creator_id, [...(strays.get(row.creator_id) ?? []), row.id]);
    }
    return strays;
  }

  private rowsOf(creatorIds: string[]): Promise<Array<{ id: string; creator_id: string }>> {
    return this.dataSource.query('SELECT id, creator_id FROM links WHERE creator_id = ANY($1)', [
      creatorIds,
    ]);
  }
}
