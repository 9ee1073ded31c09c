import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FxHealthStatus } from '../fx/math/classify-fx-health';
import type { ReplicaStatus } from '../database/read-replicas';
import type { DependencyStatus, HealthStatus } from './health-status';

export class DependencyCheckResponse {
  @ApiProperty({ enum: ['ok', 'slow', 'unreachable'] }) status: DependencyStatus;
  @ApiProperty({ minimum: 0 }) latencyMs: number;
}

export class ClickSpoolHealthResponse {
  @ApiProperty({ minimum: 0, description: 'Clicks on disk waiting for Redis' }) clicks: number;
  @ApiProperty({ minimum: 0 }) bytes: number;
  @ApiProperty({
    minimum: 0,
    description: 'Clicks served but not recorded since this node started (spool full or failing)',
  })
  droppedClicks: number;
}

export class KvHealthCheckResponse extends DependencyCheckResponse {
  @ApiPropertyOptional({
    type: ClickSpoolHealthResponse,
    description:
      "This node's click spool (docs/operations.md (Durability)): present while Redis is unreachable, or while clicks wait in the spool or some were dropped",
  })
  spool?: ClickSpoolHealthResponse;
}

export class FxHealthCheckResponse {
  @ApiProperty({ enum: ['ok', 'stale', 'refresh_failed', 'missing'] }) status: FxHealthStatus;
  @ApiProperty({ type: Number, nullable: true, description: 'Age of the rates in use, in hours' })
  ageHours: number | null;
  @ApiPropertyOptional({ format: 'date-time', description: 'Last failed refresh of this node' })
  lastRefreshFailedAt?: string;
  @ApiPropertyOptional({
    type: [String],
    example: ['primary: HTTP 500', 'fallback: connection refused'],
  })
  lastRefreshFailureReasons?: string[];
}

export class ReadReplicaCheckResponse {
  @ApiProperty({ minimum: 1, description: 'Its place in DATABASE_READ_URL, from 1' })
  replica: number;
  @ApiProperty({
    enum: ['ok', 'lagging', 'unreachable', 'not_a_replica', 'unknown'],
    description:
      'ok: analytics reads go there; lagging: further behind than DATABASE_READ_MAX_LAG_S; unreachable: down or failing; not_a_replica: neither in recovery nor the primary; unknown: not measured yet. Only ok replicas are read from; else the primary answers',
  })
  status: ReplicaStatus;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      "Seconds of the primary's commits it may not show yet (at least this much when lagging); null when not measured",
  })
  lagSeconds: number | null;
}

export class HealthChecksResponse {
  @ApiProperty({ type: DependencyCheckResponse }) database: DependencyCheckResponse;
  @ApiProperty({
    type: KvHealthCheckResponse,
    description:
      'Redis; while it is unreachable, limits apply in-process and counted clicks are spooled',
  })
  kv: KvHealthCheckResponse;
  @ApiProperty({ type: FxHealthCheckResponse, description: 'Does not affect `status`' })
  fx: FxHealthCheckResponse;
  @ApiPropertyOptional({
    type: [ReadReplicaCheckResponse],
    description:
      "The read replicas of the analytics reads (DATABASE_READ_URL), present when set, as this node's last check found them (every second); does not affect `status`: without them the primary answers",
  })
  readReplicas?: ReadReplicaCheckResponse[];
}

export class HealthResponse {
  @ApiProperty({ enum: ['ok', 'degraded', 'down'] }) status: HealthStatus;
  @ApiProperty({ example: 'v1' }) version: string;
  @ApiProperty({ minimum: 0, description: 'Round trip of a Redis PING, in milliseconds' })
  kvLatencyMs: number;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ type: HealthChecksResponse, description: 'Per-dependency detail ([G] extension)' })
  checks: HealthChecksResponse;
}
