import globalSetup from './global-setup';
import { startRedisCluster } from './redis-cluster';

/**
 * `npm run test:cluster` (jest.cluster.config.js): a Redis Cluster of the run's own, handed
 * to the test workers as REDIS_CLUSTER_NODES in place of any REDIS_URL, then the database
 * as in every run.
 */
export default async function clusterGlobalSetup(): Promise<void> {
  const cluster = await startRedisCluster();
  (globalThis as { __linkpilotRedisCluster?: unknown }).__linkpilotRedisCluster = cluster;
  delete process.env.REDIS_URL;
  process.env.REDIS_CLUSTER_NODES = cluster.nodes;
  await globalSetup();
}
