import { Module } from '@nestjs/common';
import { AdvisoryLocks } from '../database/advisory-lock';
import { VisitorSketchMoveJob } from './visitor-sketch-move.job';
import { VisitorSketchMover } from './visitor-sketch-mover';
import { VisitorSketchesRepository } from './visitor-sketches.repository';

/**
 * The unique-visitor sketch mover and its hourly job (the key-value store's days that are
 * over, to PostgreSQL). Apart from AnalyticsModule, which the CLI imports through links and
 * the sandbox, so only the servers run it.
 */
@Module({
  providers: [AdvisoryLocks, VisitorSketchesRepository, VisitorSketchMover, VisitorSketchMoveJob],
  exports: [VisitorSketchMover],
})
export class VisitorSketchMoveModule {}
