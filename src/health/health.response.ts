import { ApiProperty } from '@nestjs/swagger';
import type { DependencyStatus, HealthStatus } from './health-status';

export class DependencyCheckResponse {
  @ApiProperty({ enum: ['ok', 'slow', 'unreachable'] }) status: DependencyStatus;
  @ApiProperty({ minimum: 0 }) latencyMs: number;
}

export class HealthChecksResponse {
  @ApiProperty({ type: DependencyCheckResponse }) database: DependencyCheckResponse;
  @ApiProperty({ type: DependencyCheckResponse }) kv: DependencyCheckResponse;
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
