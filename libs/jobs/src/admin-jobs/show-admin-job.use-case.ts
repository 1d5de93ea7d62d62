import { Inject, Injectable } from '@nestjs/common';
import { type Actor } from '@app/tenancy';
import { AdminJobLookup } from './admin-job-lookup';
import type { JobView } from './admin-job-view';

/**
 * `GET /api/admin/jobs/:id`: a job of the actor's own tenant by `jobs` uuid or queue id, with both
 * the queue's record and the row's progress; anything else is not found.
 */
@Injectable()
export class ShowAdminJobUseCase {
  constructor(@Inject(AdminJobLookup) private readonly lookup: AdminJobLookup) {}

  execute(actor: Actor, jobId: string): Promise<JobView> {
    return this.lookup.find(actor, jobId);
  }
}
