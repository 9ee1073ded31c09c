import globalTeardown from './global-teardown';
import type { PrivateRedisCluster } from './redis-cluster';

export default async function clusterGlobalTeardown(): Promise<void> {
  await globalTeardown();
  const { __linkpilotRedisCluster: cluster } = globalThis as {
    __linkpilotRedisCluster?: PrivateRedisCluster;
  };
  await cluster?.remove();
}
