'use strict';
/**
 * The reads the analytics scale bench times (analytics-scale.js), through the public API only,
 * as a dashboard sends them: each read once untimed (the server's code paths and PostgreSQL's
 * caches warm), then `runs` times, one after another, timed from the request sent to the last
 * byte of its answer. What counts is the median.
 */

/** What the server meters time series by (its default; the bench leaves it as it is). */
const POINTS_PER_SECOND = Number(process.env.ANALYTICS_POINTS_PER_SECOND ?? 50_000);
/** The API's own bounds (docs/analytics.md "The analytics API"). */
const MAX_TIMESERIES_POINTS = 10_000;
const PAGE_LIMIT = 100;
/** The deepest page the API serves by offset: page × limit ≤ 10,000. */
const DEEPEST_PAGE = 10_000 / PAGE_LIMIT;
/** Pages walked by cursor before the timed cursor page. */
const CURSOR_DEPTH_PAGES = 100;
const GROUPS = ['none', 'country', 'device', 'network', 'outcome'];
const DAY_MS = 24 * 60 * 60 * 1000;

const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The reads of one creator's month: `month` is {first, last} (days), `today` a day of it,
 * `linkId` one of the month's links, `merchantId` one of its merchants, `countries` how many
 * countries the month's clicks have (an hourly series by country over a whole month has more
 * points than one answer holds: 14 × 720 > 10,000, a 400 by design, so that one covers the
 * days that fit).
 */
function readsOf({ month, today, linkId, merchantId, countries }) {
  const monthDays = Math.round((Date.parse(month.last) - Date.parse(month.first)) / DAY_MS) + 1;
  const series = (interval, groupBy, extra = {}) => {
    const days =
      interval === 'hour' && groupBy === 'country'
        ? Math.min(monthDays, Math.floor(MAX_TIMESERIES_POINTS / (countries * 24)))
        : monthDays;
    const to = dayOf(Date.parse(month.first) + (days - 1) * DAY_MS);
    const query = new URLSearchParams({ interval, from: month.first, to, groupBy, ...extra });
    const span = days === monthDays ? 'month' : `${days} days`;
    return {
      name: `series by ${interval}, ${span}${extra.linkId ? ', one link' : ''}, ${groupBy}`,
      path: `/v1/analytics/timeseries?${query}`,
      isSeries: true,
    };
  };
  const list = (name, query) => ({
    name,
    path: `/v1/analytics/clicks?${new URLSearchParams({ limit: String(PAGE_LIMIT), ...query })}`,
  });
  const monthPeriod = `periodStart=${month.first}&periodEnd=${month.last}`;
  return [
    { name: 'summary, month', path: `/v1/analytics/summary?${monthPeriod}`, isMonthSummary: true },
    {
      name: 'summary, one day',
      path: `/v1/analytics/summary?periodStart=${today}&periodEnd=${today}`,
    },
    ...GROUPS.map((groupBy) => series('day', groupBy)),
    ...GROUPS.map((groupBy) => series('hour', groupBy)),
    series('day', 'country', { linkId }),
    series('hour', 'none', { linkId }),
    list('clicks, page 1', {}),
    list(`clicks, page ${DEEPEST_PAGE} (offset ${(DEEPEST_PAGE - 1) * PAGE_LIMIT})`, {
      page: String(DEEPEST_PAGE),
    }),
    {
      name: `clicks by cursor, page ${CURSOR_DEPTH_PAGES + 1}`,
      path: null, // found by walking the cursor (walkCursor)
    },
    list('clicks, one link', { linkId }),
    list('clicks, one merchant and day', { merchantId, from: today, to: today }),
    { name: 'link report, month', path: `/v1/analytics/links/${linkId}?${monthPeriod}` },
    { name: 'account', path: '/v1/account' },
    { name: 'account, counter deleted (quota seed)', path: '/v1/account', deletesCounter: true },
  ];
}

/** One request: status, milliseconds to the last byte, and the parsed body. */
async function request(baseUrl, apiKey, path) {
  const startedAt = performance.now();
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const text = await response.text();
  const ms = performance.now() - startedAt;
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the status says enough */
  }
  return { status: response.status, ms, body };
}

/** The path of the page CURSOR_DEPTH_PAGES pages deep, walked by `nextCursor`. */
async function walkCursor(baseUrl, apiKey) {
  let path = `/v1/analytics/clicks?limit=${PAGE_LIMIT}`;
  for (let page = 1; page <= CURSOR_DEPTH_PAGES; page++) {
    const { status, body } = await request(baseUrl, apiKey, path);
    const cursor = body?.data?.pagination?.nextCursor;
    if (status !== 200 || typeof cursor !== 'string') {
      throw new Error(`cursor walk stopped at page ${page}: ${status} ${JSON.stringify(body)}`);
    }
    path = `/v1/analytics/clicks?limit=${PAGE_LIMIT}&cursor=${encodeURIComponent(cursor)}`;
  }
  return path;
}

/**
 * Times every read: a warm-up call, then `runs` calls. A time series pays for its points
 * (series × buckets) against the server's budget, so the bench waits out what each one
 * spent before the next: a read is timed, never refused for the bench's own pace.
 * `deleteCounter` removes the creator's quota counter from Redis (before a read that asks).
 */
async function timeReads({ baseUrl, apiKey, reads, runs, deleteCounter }) {
  const results = [];
  for (const read of reads) {
    const path = read.path ?? (await walkCursor(baseUrl, apiKey));
    const timings = [];
    const statuses = {};
    let lastBody = null;
    for (let run = 0; run <= runs; run++) {
      if (read.deletesCounter) await deleteCounter();
      const { status, ms, body } = await request(baseUrl, apiKey, path);
      if (run > 0) {
        timings.push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      lastBody = body;
      if (read.isSeries && status === 200) {
        const points = body.data.series.length * (body.data.series[0]?.buckets?.length ?? 0);
        await sleep(Math.ceil((1000 * points) / POINTS_PER_SECOND));
      }
    }
    results.push({
      name: read.name,
      path,
      statuses,
      medianMs: Number(median(timings).toFixed(1)),
      runsMs: timings.map((ms) => Number(ms.toFixed(1))),
      ...(statuses[200] === runs ? {} : { lastError: lastBody?.error ?? lastBody }),
      ...(read.isMonthSummary && lastBody?.data ? { totalClicks: lastBody.data.totalClicks } : {}),
      ...(read.deletesCounter && lastBody?.data
        ? { clicksUsedThisPeriod: lastBody.data.clicksUsedThisPeriod }
        : {}),
    });
  }
  return results;
}

module.exports = { readsOf, timeReads };
