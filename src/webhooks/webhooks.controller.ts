import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, Caller, RequiresPlanCapability } from '../common/access/access.decorators';
import { ApiEnvelopedOk } from '../common/api-response.decorator';
import { PageQuery } from '../common/pagination';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import {
  DeleteWebhookResponse,
  TestWebhookResponse,
  WebhookDeliveryListResponse,
  WebhookEnvelope,
  WebhookListResponse,
  WebhookWithSecretEnvelope,
} from './webhook.response';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequiresPlanCapability('hasWebhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({ summary: 'Register an endpoint (Enterprise); the signing secret is shown once' })
  @ApiEnvelopedOk(WebhookWithSecretEnvelope, 201)
  create(
    @Caller() caller: AuthContext,
    @Body() body: CreateWebhookDto,
  ): Promise<WebhookWithSecretEnvelope> {
    return this.webhooks.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: "The caller's endpoints in the key's environment, newest first" })
  @ApiEnvelopedOk(WebhookListResponse)
  list(@Caller() caller: AuthContext): Promise<WebhookListResponse> {
    return this.webhooks.list(caller);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One endpoint' })
  @ApiEnvelopedOk(WebhookEnvelope)
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<WebhookEnvelope> {
    return this.webhooks.get(caller, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update the fields present' })
  @ApiEnvelopedOk(WebhookEnvelope)
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookEnvelope> {
    return this.webhooks.update(caller, id, body);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete; pending deliveries to it fail' })
  @ApiEnvelopedOk(DeleteWebhookResponse)
  remove(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DeleteWebhookResponse> {
    return this.webhooks.remove(caller, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'New signing secret; the previous one also signs for 24 h' })
  @ApiEnvelopedOk(WebhookWithSecretEnvelope)
  rotateSecret(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
  ): Promise<WebhookWithSecretEnvelope> {
    return this.webhooks.rotateSecret(caller, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({ summary: 'Queue a webhook.ping event for this endpoint' })
  @ApiEnvelopedOk(TestWebhookResponse, 202)
  sendTest(@Caller() caller: AuthContext, @Param('id') id: string): Promise<TestWebhookResponse> {
    return this.webhooks.sendTest(caller, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The endpoint's deliveries, newest first" })
  @ApiEnvelopedOk(WebhookDeliveryListResponse)
  listDeliveries(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Query() query: PageQuery,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.listDeliveries(caller, id, query);
  }
}
