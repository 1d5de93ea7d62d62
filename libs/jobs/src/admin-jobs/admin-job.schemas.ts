import { z } from 'zod';
import { pageQuery } from '@app/tenancy';
import type { JobName } from '../job-definitions';
import { QUEUE_JOB_STATES, TENANT_JOB_NAMES } from '../job-inspector.port';
import type { ListAdminJobsInput } from './list-admin-jobs.use-case';

/** `GET /api/admin/jobs?state=&name=&cursor=&limit=` and `cli jobs list`. */
export const listAdminJobsQuery = z
  .object({
    state: z.enum(QUEUE_JOB_STATES, `must be one of ${QUEUE_JOB_STATES.join(', ')}`).optional(),
    name: z
      .enum(TENANT_JOB_NAMES as [JobName, ...JobName[]], `must be one of ${TENANT_JOB_NAMES.join(', ')}`)
      .optional()
      .describe('Job name'),
  })
  .extend(pageQuery.shape)
  .extend({ limit: z.coerce.number('must be a number').int().min(1).max(500).default(50) });

export const listAdminJobsQuerySchema = listAdminJobsQuery.transform((q): ListAdminJobsInput => ({
  state: q.state,
  name: q.name,
  cursor: q.cursor,
  limit: q.limit,
}));

/** A job id in a path: a `jobs` uuid, or a queue job id. */
export const adminJobRefParams = z.object({
  id: z
    .string()
    .max(200)
    .describe('The `jobs` uuid (as a 202 answer gives it), or the queue job id a list shows'),
});
