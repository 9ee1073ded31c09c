import { PartialType } from '@nestjs/swagger';
import { CreateWebhookDto } from './create-webhook.dto';

/** PATCH: the fields present change; `url` is checked again like on creation. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto) {}
