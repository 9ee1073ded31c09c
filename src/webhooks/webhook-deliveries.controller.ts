import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller, RequiresPlanCapability } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { WebhookDeliveryEnvelope } from './webhook.response';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequiresPlanCapability('hasWebhooks')
@Controller('webhook-deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post(':id/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attempt a delivery again now (attempts so far are kept)' })
  @ApiEnvelopedOk(WebhookDeliveryEnvelope)
  retry(@Caller() caller: AuthContext, @Param('id') id: string): Promise<WebhookDeliveryEnvelope> {
    return this.webhooks.retryDelivery(caller, id);
  }
}
