import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { RecordScope } from '../common/access/auth-context';
import { Clock } from '../common/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { newUlid } from '../common/ids';
import { PageQuery, DEFAULT_PAGE_SIZE, paginationMeta } from '../common/pagination';
import { InjectConfig } from '../config/config.module';
import { WebhooksConfig } from '../config/env';
import { EventOutboxService } from '../events/event-outbox.service';
import { CreateWebhookDto } from './dto/create-webhook.dto';
import { UpdateWebhookDto } from './dto/update-webhook.dto';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import {
  WebhookEndpointChanges,
  WebhookEndpointRecord,
  WebhookEndpointsRepository,
} from './webhook-endpoints.repository';
import { toDeliveryResponse, toWebhookResponse } from './webhook.mapper';
import {
  DeleteWebhookResponse,
  TestWebhookResponse,
  WebhookDeliveryEnvelope,
  WebhookDeliveryListResponse,
  WebhookEnvelope,
  WebhookListResponse,
  WebhookWithSecretEnvelope,
} from './webhook.response';
import { WebhookSecretCipher } from './webhook-secret-cipher';
import { WebhookSecretRotationService } from './webhook-secret-rotation.service';
import { generateSigningSecret } from './webhook-signing';
import { WebhookOriginsService } from './webhook-origins.service';
import { findWebhookUrlProblem } from './webhook-url-guard';

/** Endpoints per creator and environment (issue 17). */
const MAX_WEBHOOKS_PER_CREATOR = 10;
/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

/** The webhook endpoints API (docs/webhooks.md "Webhooks"); every call is scoped by creator and environment. */
@Injectable()
export class WebhooksService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(WebhooksService.name);

  constructor(
    @InjectConfig('webhooks') private readonly config: WebhooksConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbox: EventOutboxService,
    private readonly origins: WebhookOriginsService,
    private readonly cipher: WebhookSecretCipher,
    private readonly keyRotation: WebhookSecretRotationService,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    if (this.config.allowPrivateTargets) {
      this.logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhook endpoints may be http:// and private, ' +
          'loopback or link-local addresses. For tests only; never in production.',
      );
    }
    if (this.config.secretKey !== null) return;
    if (this.config.developmentKeyAllowedBy === 'WEBHOOK_ALLOW_DEVELOPMENT_KEY') {
      this.logger.warn(
        'INSECURE: WEBHOOK_ALLOW_DEVELOPMENT_KEY is on and WEBHOOK_SECRET_KEY unset: webhook ' +
          'signing secrets are stored in PostgreSQL under the built-in development key, which ' +
          'anyone with a copy of the database can read. For development machines only; set ' +
          'WEBHOOK_SECRET_KEY (`openssl rand -hex 32`) anywhere else.',
      );
    } else {
      this.logger.warn(
        'WEBHOOK_SECRET_KEY is unset: webhook signing secrets are stored under the built-in ' +
          'development key (the embedded database is for development)',
      );
    }
  }

  /** A reminder while secrets wait under an older key (a rotation not yet run or finished). */
  async onApplicationBootstrap(): Promise<void> {
    if (this.cipher.isCurrentKeyTheDevelopmentKey) return;
    const count = await this.keyRotation.countNotUnderCurrentKey().catch(() => 0);
    if (count > 0) {
      this.logger.warn(
        `${count} webhook endpoints have a signing secret under an older key (a previous ` +
          'WEBHOOK_SECRET_KEY or the built-in development key): run `npx linkpilot webhooks ' +
          'rotate-encryption-key` (docs/webhooks.md "Webhooks", "Encryption keys")',
      );
    }
  }

  async create(scope: RecordScope, body: CreateWebhookDto): Promise<WebhookWithSecretEnvelope> {
    await this.assertUrlAllowed(body.url);
    const nowMs = this.clock.nowMs();
    const secret = generateSigningSecret();
    const record = await this.endpoints.insertWithinLimit(
      {
        id: newUlid(nowMs),
        creatorId: scope.creatorId,
        environment: scope.environment,
        url: new URL(body.url).href,
        events: body.events,
        description: body.description ?? null,
        allowedOrigins: toOrigins(body.allowedOrigins ?? []),
        isEnabled: body.enabled ?? true,
        secretCiphertext: this.cipher.encrypt(secret),
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        createdAt: new Date(nowMs),
      },
      MAX_WEBHOOKS_PER_CREATOR,
    );
    if (record === null) {
      throw new AppError(
        ErrorCode.WEBHOOK_LIMIT_REACHED,
        `At most ${MAX_WEBHOOKS_PER_CREATOR} webhook endpoints per account and environment.`,
      );
    }
    await this.origins.changed();
    return { webhook: { ...toWebhookResponse(record, nowMs), secret } };
  }

  async list(scope: RecordScope): Promise<WebhookListResponse> {
    const nowMs = this.clock.nowMs();
    const records = await this.endpoints.findAllInScope(scope);
    return { items: records.map((record) => toWebhookResponse(record, nowMs)) };
  }

  async get(scope: RecordScope, id: string): Promise<WebhookEnvelope> {
    return { webhook: toWebhookResponse(await this.findOrThrow(scope, id), this.clock.nowMs()) };
  }

  async update(scope: RecordScope, id: string, body: UpdateWebhookDto): Promise<WebhookEnvelope> {
    if (body.url !== undefined) await this.assertUrlAllowed(body.url);
    const changes: WebhookEndpointChanges = {
      url: body.url === undefined ? undefined : new URL(body.url).href,
      events: body.events,
      description: body.description,
      allowedOrigins:
        body.allowedOrigins === undefined ? undefined : toOrigins(body.allowedOrigins),
      isEnabled: body.enabled,
    };
    const nowMs = this.clock.nowMs();
    const record = await this.endpoints.updateInScope(scope, id, changes, new Date(nowMs));
    if (record === null) throw notFound(id);
    await this.origins.changed();
    return { webhook: toWebhookResponse(record, nowMs) };
  }

  async remove(scope: RecordScope, id: string): Promise<DeleteWebhookResponse> {
    const isDeleted = await this.endpoints.softDeleteInScope(
      scope,
      id,
      new Date(this.clock.nowMs()),
    );
    if (!isDeleted) throw notFound(id);
    await this.origins.changed();
    return { id, deleted: true };
  }

  async rotateSecret(scope: RecordScope, id: string): Promise<WebhookWithSecretEnvelope> {
    const nowMs = this.clock.nowMs();
    const secret = generateSigningSecret();
    const record = await this.endpoints.rotateSecretInScope(
      scope,
      id,
      this.cipher.encrypt(secret),
      new Date(nowMs + PREVIOUS_SECRET_GRACE_MS),
      new Date(nowMs),
    );
    if (record === null) throw notFound(id);
    return { webhook: { ...toWebhookResponse(record, nowMs), secret } };
  }

  /** Queues a `webhook.ping` for this endpoint alone (subscribed or not). */
  async sendTest(scope: RecordScope, id: string): Promise<TestWebhookResponse> {
    const record = await this.findOrThrow(scope, id);
    const event = await this.outbox.publish(
      scope,
      'webhook.ping',
      { webhookId: record.id, message: 'Test event from Linkpilot' },
      { targetEndpointId: record.id },
    );
    return { eventId: event.id };
  }

  async listDeliveries(
    scope: RecordScope,
    id: string,
    query: PageQuery,
  ): Promise<WebhookDeliveryListResponse> {
    const record = await this.findOrThrow(scope, id);
    const page = query.page ?? 1;
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const { items, total } = await this.deliveries.pageForEndpoint(record.id, page, limit);
    return { items: items.map(toDeliveryResponse), pagination: paginationMeta(page, limit, total) };
  }

  async retryDelivery(scope: RecordScope, deliveryId: string): Promise<WebhookDeliveryEnvelope> {
    const record = await this.deliveries.retryInScope(
      scope,
      deliveryId,
      new Date(this.clock.nowMs()),
    );
    if (record === null) {
      throw new AppError(
        ErrorCode.WEBHOOK_DELIVERY_NOT_FOUND,
        `No webhook delivery ${deliveryId}.`,
      );
    }
    return { delivery: toDeliveryResponse(record) };
  }

  private async findOrThrow(scope: RecordScope, id: string): Promise<WebhookEndpointRecord> {
    const record = await this.endpoints.findInScope(scope, id);
    if (record === null) throw notFound(id);
    return record;
  }

  private async assertUrlAllowed(url: string): Promise<void> {
    const problem = await findWebhookUrlProblem(url, this.config.allowPrivateTargets);
    if (problem !== null) {
      throw new AppError(ErrorCode.VALIDATION_ERROR, problem, { url: [problem] });
    }
  }
}

/** Origins as browsers send them (`new URL().origin`: lower-case host, no default port). */
function toOrigins(origins: string[]): string[] {
  return [...new Set(origins.map((origin) => new URL(origin).origin))];
}

function notFound(id: string): AppError {
  return new AppError(ErrorCode.WEBHOOK_NOT_FOUND, `No webhook ${id}.`);
}
