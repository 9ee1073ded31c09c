// Creates a link, lists links and reads this month's analytics summary:
//   LINKPILOT_API_KEY=lp_live_sk_… npm run example
// which compiles examples/ with its own tsconfig.json (tsc, to examples/dist/) and runs this
// file with node. LINKPILOT_API_URL defaults to http://localhost:3000/v1.
import { createLinkpilotClient } from './linkpilot-client';

async function main(): Promise<void> {
  const apiKey = process.env.LINKPILOT_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    throw new Error(
      'Set LINKPILOT_API_KEY (npx linkpilot creators create --plan publisher --with-key)',
    );
  }
  const client = createLinkpilotClient(
    process.env.LINKPILOT_API_URL ?? 'http://localhost:3000/v1',
    apiKey,
  );
  const link = await client.createLink({ originalUrl: 'https://www.amazon.com/dp/B09G9FPHY6' });
  process.stdout.write(`created ${link.linkId}: ${link.linkpilotUrl} -> ${link.routedUrl}\n`);
  const links = await client.listLinks({ limit: 5 });
  process.stdout.write(`newest links: ${links.map((item) => item.linkId).join(', ')}\n`);
  const summary = await client.getAnalyticsSummary();
  process.stdout.write(
    `${summary.periodStart}..${summary.periodEnd}: ${summary.totalClicks} clicks\n`,
  );
}

main().catch((error: unknown) => {
  // fetch says only "fetch failed" when no server answers; its cause names the address.
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  process.stderr.write(`${String(error)}${cause instanceof Error ? ` (${cause.message})` : ''}\n`);
  process.exitCode = 1;
});
