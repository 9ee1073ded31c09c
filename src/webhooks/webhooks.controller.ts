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
import { ErrorCode } from '../common/errors/error-code';
import { ApiErrorCodes, ApiRequestExamples } from '../openapi/operation-docs.decorators';
import {
  ApiWebhookIdParameter,
  CREATE_WEBHOOK_EXAMPLES,
  UPDATE_WEBHOOK_EXAMPLES,
} from './webhooks.examples';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequiresPlanCapability('hasWebhooks')
@ApiErrorCodes(ErrorCode.ENTERPRISE_TIER_REQUIRED)
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Register an endpoint (Enterprise); the signing secret is shown once',
    description:
      'An https URL whose host resolves to public addresses only, and the event types to ' +
      'send it. Deliveries are signed with the secret answered here (keep it: it is not ' +
      'shown again) and retried with backoff. At most 10 endpoints per account and key ' +
      'environment (403 WEBHOOK_LIMIT_REACHED).',
  })
  @ApiRequestExamples(CreateWebhookDto, CREATE_WEBHOOK_EXAMPLES)
  @ApiErrorCodes(ErrorCode.ENTERPRISE_TIER_REQUIRED, ErrorCode.WEBHOOK_LIMIT_REACHED)
  @ApiEnvelopedOk(WebhookWithSecretEnvelope, 201)
  create(
    @Caller() caller: AuthContext,
    @Body() body: CreateWebhookDto,
  ): Promise<WebhookWithSecretEnvelope> {
    return this.webhooks.create(caller, body);
  }

  @Get()
  @ApiOperation({
    summary: "The caller's endpoints in the key's environment, newest first",
    description: 'Without their secrets (shown only on creation and rotation).',
  })
  @ApiEnvelopedOk(WebhookListResponse)
  list(@Caller() caller: AuthContext): Promise<WebhookListResponse> {
    return this.webhooks.list(caller);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One endpoint',
    description: 'Without its secret. Another account’s endpoint, or a deleted one, is 404.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiEnvelopedOk(WebhookEnvelope)
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<WebhookEnvelope> {
    return this.webhooks.get(caller, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update the fields present',
    description:
      'Only the fields sent change; a new `url` is checked as on creation. `enabled: false` ' +
      'stops new deliveries.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiRequestExamples(UpdateWebhookDto, UPDATE_WEBHOOK_EXAMPLES)
  @ApiEnvelopedOk(WebhookEnvelope)
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookEnvelope> {
    return this.webhooks.update(caller, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete; pending deliveries to it fail',
    description: 'The endpoint gets no new delivery; a second DELETE is 404.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiEnvelopedOk(DeleteWebhookResponse)
  remove(@Caller() caller: AuthContext, @Param('id') id: string): Promise<DeleteWebhookResponse> {
    return this.webhooks.remove(caller, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'New signing secret; the previous one also signs for 24 h',
    description:
      'Answers the new secret once. For 24 hours deliveries carry both signatures, so the ' +
      'receiver can switch without missing one.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiEnvelopedOk(WebhookWithSecretEnvelope)
  rotateSecret(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
  ): Promise<WebhookWithSecretEnvelope> {
    return this.webhooks.rotateSecret(caller, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Queue a webhook.ping event for this endpoint',
    description:
      'The ping is delivered like any event, signed, within a second or so; its delivery ' +
      'shows in GET /webhooks/{id}/deliveries.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiEnvelopedOk(TestWebhookResponse, 202)
  sendTest(@Caller() caller: AuthContext, @Param('id') id: string): Promise<TestWebhookResponse> {
    return this.webhooks.sendTest(caller, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "The endpoint's deliveries, newest first",
    description: 'Each with its state, attempts, last status code or error, and next attempt.',
  })
  @ApiWebhookIdParameter()
  @ApiErrorCodes(ErrorCode.WEBHOOK_NOT_FOUND)
  @ApiEnvelopedOk(WebhookDeliveryListResponse)
  listDeliveries(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Query() query: PageQuery,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.listDeliveries(caller, id, query);
  }
}
