#!/usr/bin/env node
'use strict';
// The click router's cost per click on the redirect's warm path (a link already routed for its
// visitor context), for two builds alternated in one process, so both meet the same machine
// load: `node bench/click-router-compare.js <old dist> <new dist>` (each a copy of `dist/`).
// 1,000 links over the 35 seeded merchants, 20 visitor contexts, a creator routing `hinted`;
// 10 rounds of 400,000 clicks per build after a warm-up, medians in ns per click.
const fs = require('node:fs');
const path = require('node:path');

const [oldDist, newDist] = process.argv.slice(2).map((dir) => path.resolve(dir));
if (newDist === undefined) {
  console.error('usage: node bench/click-router-compare.js <old dist> <new dist>');
  process.exit(2);
}
const routerOf = (dist) => require(path.join(dist, 'src/redirect/click-router.js')).ClickRouter;
const { NETWORK_IDS } = require(path.join(newDist, 'src/networks/network-ids.js'));
const seedsDir = path.join(__dirname, '../seeds/merchants');
const merchants = fs
  .readdirSync(seedsDir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(fs.readFileSync(path.join(seedsDir, file), 'utf8')));

const affiliateIds = Object.fromEntries(NETWORK_IDS.map((id) => [id, `acct-${id}`]));
const creator = {
  creatorId: 'bench',
  planId: 'enterprise',
  edgeClicksPerMinute: 1e6,
  includedClicks: 1e9,
  isHardCap: false,
  routingMode: 'hinted',
  affiliateIds,
  accountsTag: 'a0',
};
const fx = JSON.parse(fs.readFileSync(path.join(__dirname, '../seeds/fx-snapshot.json'), 'utf8'));
const snapshot = {
  base: 'USD',
  rates: fx.rates,
  timestamp: 't',
  source: 'primary',
  isStale: false,
};
const links = Array.from({ length: 1000 }, (_, i) => {
  const merchant = merchants[i % merchants.length];
  const examples = merchant.canonicalization.examples;
  const url = examples[i % examples.length].input;
  return {
    merchant,
    record: {
      linkId: `l${i}`,
      version: '1',
      creatorId: 'bench',
      environment: 'live',
      originalUrl: url,
      merchantId: merchant.merchantId,
      passthrough: false,
      preset: 'default',
      category: null,
      networkOverride: null,
      utmOverride: null,
      forwardQuery: false,
      probes: { deepLinkStatus: 'validated', healthStatus: 'ok' },
      stored: {
        routedUrl: url,
        region: null,
        networkId: null,
        outcome: 'routed',
        normalizedEpcUsd: 0,
        confidenceFactor: 1,
        deepLinkUsed: false,
      },
    },
  };
});
const visitors = ['US', 'GB', 'DE', 'IN', 'JP', 'BR', 'FR', 'CA', 'AU', 'SG'].flatMap((country) =>
  ['desktop', 'mobile'].map((device) => ({
    country,
    device,
    os: device === 'mobile' ? 'android' : null,
    isInAppBrowser: false,
  })),
);
const nowMs = Date.parse('2026-12-01T12:00:00Z');

const routers = new Map();
function nsPerClick(Router, clicks) {
  if (!routers.has(Router)) routers.set(Router, new Router());
  const router = routers.get(Router);
  const start = process.hrtime.bigint();
  for (let i = 0; i < clicks; i++) {
    const { merchant, record } = links[i % links.length];
    router.route(record, creator, visitors[(i * 7) % visitors.length], merchant, snapshot, nowMs);
  }
  return Number(process.hrtime.bigint() - start) / clicks;
}

const builds = [
  ['old', routerOf(oldDist)],
  ['new', routerOf(newDist)],
];
for (const [, Router] of builds) nsPerClick(Router, 200_000);
const rounds = { old: [], new: [] };
for (let round = 0; round < 10; round++) {
  for (const [name, Router] of round % 2 === 0 ? builds : [...builds].reverse()) {
    rounds[name].push(Math.round(nsPerClick(Router, 400_000)));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  JSON.stringify({
    oldNsPerClick: rounds.old,
    newNsPerClick: rounds.new,
    medianOld: median(rounds.old),
    medianNew: median(rounds.new),
  }),
);
