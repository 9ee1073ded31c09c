import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { AuthContext, Caller, planRateLimit } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { RouteRequestDto } from './dto/route-request.dto';
import { RouteResponse } from './route.response';
import { RoutingService } from './routing.service';
import { ApiRequestExamples } from '../openapi/operation-docs.decorators';

@ApiTags('routing')
@ApiBearerAuth()
@Controller('route')
export class RoutingController {
  constructor(private readonly routing: RoutingService) {}

  @Post()
  @HttpCode(200)
  // Its own bucket, instead of the general one.
  @SkipThrottle({ general: true })
  @Throttle({ route: { limit: planRateLimit('routeRequestsPerMinute') } })
  @ApiOperation({
    summary: 'A routing decision; persists nothing and counts no click',
    description:
      'What POST /links would decide for these fields: the merchant, storefront, network ' +
      'and routed URL, with the scored candidates. Its own per-minute bucket instead of the ' +
      'general one.',
  })
  @ApiRequestExamples(RouteRequestDto, {
    usMobile: {
      summary: 'An amazon.com product for a mobile visitor in the US',
      value: {
        originalUrl: 'https://www.amazon.com/dp/B09B8V1LZ3',
        visitorCountry: 'US',
        deviceType: 'mobile',
        includeCrcTrace: true,
      },
    },
  })
  @ApiEnvelopedOk(RouteResponse)
  route(@Caller() caller: AuthContext, @Body() body: RouteRequestDto): Promise<RouteResponse> {
    return this.routing.route(caller.creatorId, caller.environment, body);
  }
}
