import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller, RequiresPlanCapability } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { WebhookDeliveryEnvelope } from './webhook.response';
import { WebhooksService } from './webhooks.service';
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes, ApiPathParameterFrom } from '../openapi/operation-docs.decorators';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequiresPlanCapability('hasWebhooks')
@ApiErrorCodes(ErrorCode.ENTERPRISE_TIER_REQUIRED)
@Controller('webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post(':id/retry')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attempt a delivery again now (attempts so far are kept)',
    description:
      'Puts the delivery back in the queue, due now, whatever its state (a failed one too); ' +
      'the worker attempts it within a second or so. One being attempted right now is left ' +
      'as it is.',
  })
  @ApiPathParameterFrom('id', 'A delivery id, from GET /webhooks/{id}/deliveries', {
    operationId: 'WebhooksController_listDeliveries',
    status: 200,
    pointer: '/data/items/0/id',
  })
  @ApiErrorCodes(ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND)
  @ApiEnvelopedOk(WebhookDeliveryEnvelope)
  retry(@Caller() caller: AuthContext, @Param('id') id: string): Promise<WebhookDeliveryEnvelope> {
    return this.webhooks.retryDelivery(caller, id);
  }
}
