import { Module } from '@nestjs/common';
import { ReadReplicas } from './read-replicas';

/** The read replicas (DATABASE_READ_URL): one monitor per app, shared by analytics and health. */
@Module({
  providers: [ReadReplicas],
  exports: [ReadReplicas],
})
export class ReadReplicasModule {}
