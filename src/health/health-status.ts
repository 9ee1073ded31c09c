export type DependencyStatus = 'ok' | 'slow' | 'unreachable';
export type HealthStatus = 'ok' | 'degraded' | 'down';

export interface DependencyCheck {
  status: DependencyStatus;
  latencyMs: number;
}

/** Classifies one probe of a dependency by its outcome and latency. */
export function classifyDependency(
  reachable: boolean,
  latencyMs: number,
  slowThresholdMs: number,
): DependencyStatus {
  if (!reachable) return 'unreachable';
  return latencyMs > slowThresholdMs ? 'slow' : 'ok';
}

/**
 * docs/design.md section 2: ok when both stores are fine, down when both are unreachable, else
 * degraded.
 */
export function overallHealth(checks: DependencyCheck[]): HealthStatus {
  if (checks.every((check) => check.status === 'ok')) return 'ok';
  if (checks.every((check) => check.status === 'unreachable')) return 'down';
  return 'degraded';
}
