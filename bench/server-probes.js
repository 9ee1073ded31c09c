'use strict';
/**
 * What the bench reads off the server under test besides its answers: the edge's cache
 * counters from its Prometheus endpoint (METRICS_PORT), and its peak resident memory.
 */
const fs = require('node:fs');

const LOOKUPS = /^linkpilot_edge_cache_lookups_total\{cache="(\w+)",source="(\w+)"\} (\d+)$/gm;

async function scrapeMetrics(metricsPort) {
  const response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  if (!response.ok) throw new Error(`metrics scrape answered ${response.status}`);
  return response.text();
}

/** Lookups so far by cache and source, e.g. { link_record: { memory: 9, redis: 0, ... } }. */
async function scrapeCacheLookups(metricsPort) {
  const lookups = {};
  for (const [, cache, source, count] of (await scrapeMetrics(metricsPort)).matchAll(LOOKUPS)) {
    lookups[cache] = { ...lookups[cache], [source]: Number(count) };
  }
  return lookups;
}

/**
 * Between two scrapes, each cache's lookups and the share answered at each level, e.g.
 * { link_record: { lookups: 1000, memory: 0.91, redis: 0.02, database: 0.07 } }.
 */
function cacheHitRates(before, after) {
  return Object.fromEntries(
    Object.entries(after).map(([cache, sources]) => {
      const counts = Object.entries(sources).map(([source, count]) => [
        source,
        count - (before[cache]?.[source] ?? 0),
      ]);
      const lookups = counts.reduce((sum, [, count]) => sum + count, 0);
      return [
        cache,
        {
          lookups,
          ...Object.fromEntries(
            counts.map(([source, count]) => [
              source,
              Number((count / Math.max(1, lookups)).toFixed(4)),
            ]),
          ),
        },
      ];
    }),
  );
}

const MEMORY_GAUGES = {
  residentMiB: 'linkpilot_process_resident_memory_bytes',
  heapUsedMiB: 'linkpilot_nodejs_heap_size_used_bytes',
  heapTotalMiB: 'linkpilot_nodejs_heap_size_total_bytes',
  externalMiB: 'linkpilot_nodejs_external_memory_bytes',
};

/** Where the server's memory is now (MiB): resident, V8 heap used and reserved, external. */
async function scrapeMemory(metricsPort) {
  const text = await scrapeMetrics(metricsPort);
  return Object.fromEntries(
    Object.entries(MEMORY_GAUGES).map(([name, metric]) => {
      const value = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text)?.[1];
      return [name, value === undefined ? null : Math.round(Number(value) / 2 ** 20)];
    }),
  );
}

/** The process's peak resident set (VmHWM) in MiB, null without /proc. */
function peakRssMiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
    return Number.isFinite(kib) ? Math.round(kib / 1024) : null;
  } catch {
    return null;
  }
}

module.exports = { scrapeCacheLookups, cacheHitRates, scrapeMemory, peakRssMiB };
