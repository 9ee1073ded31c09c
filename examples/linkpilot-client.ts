// A small typed client for the Linkpilot API, written against the types openapi-typescript
// generates from openapi.json (`npm run openapi` writes both). `npm run check` compiles it, so
// a change to the API that breaks a caller breaks the check.
import type { components, operations } from './linkpilot-api';

export type Link = components['schemas']['LinkResponse'];
export type LinkSummary = components['schemas']['LinkSummaryResponse'];
export type CreateLinkRequest = components['schemas']['CreateLinkDto'];
export type AnalyticsSummary = components['schemas']['AnalyticsSummaryResponse'];
export type ApiErrorBody = components['schemas']['ApiErrorBody'];
type Query<Operation extends keyof operations> = NonNullable<
  operations[Operation]['parameters']['query']
>;
type Success<Operation extends keyof operations, Status extends number> =
  operations[Operation]['responses'] extends Record<
    Status,
    { content: { 'application/json': infer Body } }
  >
    ? Body
    : never;

/** An error answer of the API: its envelope's `error` and the HTTP status. */
export class LinkpilotError extends Error {
  constructor(
    readonly status: number,
    readonly error: ApiErrorBody,
  ) {
    super(`${status} ${error.code}: ${error.message}`);
  }
}

export interface LinkpilotClient {
  createLink(request: CreateLinkRequest): Promise<Link>;
  listLinks(query?: Query<'LinksController_list'>): Promise<LinkSummary[]>;
  getAnalyticsSummary(query?: Query<'AnalyticsController_summarise'>): Promise<AnalyticsSummary>;
}

/** `baseUrl` is the API's root, e.g. `http://localhost:3000/v1`; `apiKey` an lp_…_sk_ key. */
export function createLinkpilotClient(baseUrl: string, apiKey: string): LinkpilotClient {
  async function call<Body>(method: string, path: string, body?: unknown): Promise<Body> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const envelope = (await response.json()) as
      { success: true; data: unknown } | components['schemas']['ApiErrorEnvelope'];
    if (envelope.success === false) {
      throw new LinkpilotError(response.status, envelope.error);
    }
    return envelope as Body;
  }
  const toSearch = (query: Record<string, string | number | boolean | undefined> = {}): string => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) {
        search.set(name, String(value));
      }
    }
    const text = search.toString();
    return text === '' ? '' : `?${text}`;
  };

  return {
    async createLink(request) {
      const answer = await call<Success<'LinksController_create', 201>>('POST', '/links', request);
      return answer.data.link;
    },
    async listLinks(query) {
      const answer = await call<Success<'LinksController_list', 200>>(
        'GET',
        `/links${toSearch(query)}`,
      );
      return answer.data.items;
    },
    async getAnalyticsSummary(query) {
      const answer = await call<Success<'AnalyticsController_summarise', 200>>(
        'GET',
        `/analytics/summary${toSearch(query)}`,
      );
      return answer.data;
    },
  };
}
