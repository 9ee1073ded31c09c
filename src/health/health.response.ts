import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FxHealthStatus } from '../fx/math/classify-fx-health';
import type { DependencyStatus, HealthStatus } from './health-status';

export class DependencyCheckResponse {
  @ApiProperty({ enum: ['ok', 'slow', 'unreachable'] }) status: DependencyStatus;
  @ApiProperty({ minimum: 0 }) latencyMs: number;
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

export class HealthChecksResponse {
  @ApiProperty({ type: DependencyCheckResponse }) database: DependencyCheckResponse;
  @ApiProperty({ type: DependencyCheckResponse }) kv: DependencyCheckResponse;
  @ApiProperty({ type: FxHealthCheckResponse, description: 'Does not affect `status`' })
  fx: FxHealthCheckResponse;
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
