import { Module } from '@nestjs/common';
import { JobsModule } from '@app/jobs';
import { JobsController } from './jobs.controller';

/** `/api/jobs/*`: the caller's own jobs, whatever the key's scopes. */
@Module({
  imports: [JobsModule],
  controllers: [JobsController],
})
export class JobsHttpModule {}
