import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ADMIN_DENIED, errorBody, json } from './openapi-helpers';
import { adminJobResponseSchema } from '@app/jobs';
import { reindexBody, reindexResponseSchema } from '@app/embeddings';

const denied = ADMIN_DENIED;

/** The embedding model switch and admin job progress (add to the document's route list). */
export const EMBEDDINGS_ADMIN_ROUTES: RouteConfig[] = [
  {
    method: 'post',
    path: '/api/admin/embeddings/reindex',
    summary: 'Embed every memory (all tenants) with a model, then make it the read model',
    description:
      'Registers the model as filling (recall keeps using the current one), queues a resumable job, and ' +
      'answers at once. Poll the job for progress. Only operators should hold the admin scope in a ' +
      'multi-tenant install: the job re-embeds every tenant’s memories.',
    request: { body: json(reindexBody) },
    responses: {
      202: { description: 'Job queued', ...json(reindexResponseSchema) },
      ...denied,
      409: { description: 'A reindex to another model is unfinished', ...json(errorBody) },
      422: { description: 'Invalid model id, or a model that cannot be loaded', ...json(errorBody) },
    },
  },
  {
    method: 'get',
    path: '/api/admin/jobs/{id}',
    summary: 'Progress of an admin job (reindex, secret migration) of the caller’s tenant',
    request: { params: z.object({ id: z.uuid() }) },
    responses: {
      200: { description: 'OK', ...json(adminJobResponseSchema) },
      ...denied,
      404: { description: 'No such job in this tenant', ...json(errorBody) },
    },
  },
];
