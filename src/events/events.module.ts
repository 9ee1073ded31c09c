import { Module } from '@nestjs/common';
import { EventOutboxRepository } from './event-outbox.repository';
import { EventOutboxService } from './event-outbox.service';

/** The webhook outbox's writer, low in the module map so every feature can report events. */
@Module({
  providers: [EventOutboxRepository, EventOutboxService],
  exports: [EventOutboxService],
})
export class EventsModule {}
