import { ApiProperty } from '@nestjs/swagger';

export class SandboxResetResponse {
  @ApiProperty({ enum: ['test'] }) environment: 'test';
  @ApiProperty({ minimum: 0, description: 'Test links removed, soft-deleted ones included' })
  deletedLinks: number;
  @ApiProperty({ minimum: 0, description: 'Test click records removed' })
  deletedClicks: number;
  @ApiProperty({ minimum: 0, description: 'Test conversions removed (their earnings with them)' })
  deletedConversions: number;
}
