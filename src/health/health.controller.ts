import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { HealthResponse } from './health.response';
import { HealthService } from './health.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @Public()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Service health; no authentication',
    description:
      'PostgreSQL and the key-value store with their latency, the click spool and the FX ' +
      'rates’ age, in the envelope. For orchestrators, GET /livez and GET /readyz answer by ' +
      'status code alone.',
  })
  @ApiEnvelopedOk(HealthResponse)
  check(): Promise<HealthResponse> {
    return this.health.check();
  }
}
