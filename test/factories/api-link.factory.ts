import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client';

/** A create-link body as the API takes it; loose on purpose so tests can send bad values. */
export type LinkRequest = Record<string, unknown>;

/** The fields of a served Link the tests read; the rest stays untyped JSON. */
export interface LinkBody {
  linkId: string;
  title: string;
  originalUrl: string;
  canonicalUrl: string;
  routedUrl: string;
  linkpilotUrl: string;
  merchantId: string | null;
  region: string | null;
  networkId: string | null;
  preset: string;
  passthrough: { enabled: boolean; reason?: string; enabledAt?: string };
  groupId: string | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
  attribution: boolean | null;
}

const ASIN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A fresh 10-character Amazon product id (B0 + 8 random), so every test's URLs are its own. */
export function generateAsin(): string {
  const suffix = [...randomBytes(8)].map((byte) => ASIN_ALPHABET[byte % 36]).join('');
  return `B0${suffix}`;
}

/** A product URL on amazon.com (the US storefront) that no other test uses. */
export function buildAmazonUrl(asin = generateAsin()): string {
  return `https://www.amazon.com/dp/${asin}`;
}

/** A product URL on asos.com (one GLOBAL storefront, networks awin and partnerize). */
export function buildAsosUrl(): string {
  const productId = 100_000_000 + (randomBytes(4).readUInt32BE(0) % 900_000_000);
  return `https://www.asos.com/prd/${productId}`;
}

/**
 * Creates a link through POST /v1/links, as a client would, and returns `data.link`; a fresh
 * Amazon URL unless `request.originalUrl` is given. Throws on anything but 201.
 */
export async function createLinkViaApi(
  api: ApiClient,
  request: LinkRequest = {},
): Promise<LinkBody> {
  const response = await api.post('/v1/links', { originalUrl: buildAmazonUrl(), ...request });
  if (response.status !== 201) {
    throw new Error(`POST /v1/links answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body.data.link as LinkBody;
}

/**
 * Creates one link per request, one after the other, oldest first. Each starts in a later
 * millisecond than the previous createdAt (the server reads the same wall clock), so
 * "newest first" and the exclusive date filters have one right answer.
 */
export async function createLinksViaApi(
  api: ApiClient,
  requests: LinkRequest[],
): Promise<LinkBody[]> {
  const links: LinkBody[] = [];
  for (const request of requests) {
    const previous = links.at(-1);
    if (previous !== undefined) await waitUntilAfter(Date.parse(previous.createdAt));
    links.push(await createLinkViaApi(api, request));
  }
  return links;
}

async function waitUntilAfter(ms: number): Promise<void> {
  while (Date.now() <= ms) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
