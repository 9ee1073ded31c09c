import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { VisitorSketchMover } from './visitor-sketch-mover';

/**
 * The sketch mover's runs: at boot (in the background: after an upgrade the first run takes
 * the store's whole history) and every hour, so a day's sketches leave the key-value store
 * within the hour after yesterday ends. Every server runs it; one at a time does the work.
 */
@Injectable()
export class VisitorSketchMoveJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(VisitorSketchMoveJob.name);

  constructor(private readonly mover: VisitorSketchMover) {}

  onApplicationBootstrap(): void {
    void this.run();
  }

  @Cron('7 * * * *', { name: 'visitor-sketch-move', timeZone: 'UTC' })
  async run(): Promise<void> {
    try {
      await this.mover.moveDueDays();
    } catch (error) {
      // Nothing is lost: the keys stay in the store, and the next run moves them.
      this.logger.warn(
        `Unique-visitor sketches not moved to PostgreSQL, retried within the hour: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.mover.stop();
  }
}
