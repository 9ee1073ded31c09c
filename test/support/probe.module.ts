import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { RequiresPlanCapability } from '../../src/common/access/access.decorators';

class NestedProbeDto {
  @IsString()
  @Length(1, 5)
  code: string;
}

class ProbeBodyDto {
  @IsString()
  @Length(1, 10)
  name: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => NestedProbeDto)
  nested?: NestedProbeDto;
}

/**
 * Test-only routes that exercise the global wiring (guard decorators, validation pipe, error
 * filter) before feature endpoints that use them exist. Mounted only by tests.
 */
@Controller('test-probe')
class ProbeController {
  @Get('enterprise')
  @RequiresPlanCapability('hasBulkAccess')
  enterpriseOnly(): { ok: true } {
    return { ok: true };
  }

  @Post('echo')
  echo(@Body() body: ProbeBodyDto): ProbeBodyDto {
    return body;
  }

  @Get('crash')
  crash(): never {
    throw new Error('secret internal detail');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
