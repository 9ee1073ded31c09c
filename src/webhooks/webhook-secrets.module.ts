import { Module } from '@nestjs/common';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookSecretCipher } from './webhook-secret-cipher';
import { WebhookSecretRotationService } from './webhook-secret-rotation.service';

/**
 * The encryption of stored signing secrets: the server's webhooks and the admin CLI's
 * `webhooks rotate-encryption-key` share it.
 */
@Module({
  providers: [WebhookEndpointsRepository, WebhookSecretCipher, WebhookSecretRotationService],
  exports: [WebhookSecretCipher, WebhookSecretRotationService],
})
export class WebhookSecretsModule {}
