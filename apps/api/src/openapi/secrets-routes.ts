import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  migrateOwnSecretsResponseSchema,
  revealedSecretSchema,
  secretMigrationBodySchema,
  secretMigrationResponseSchema,
} from '@app/memories';
import { ADMIN_DENIED, errorResponse, json, ok } from './openapi-helpers';

const unavailable = {
  503: errorResponse(
    'The secret store is sealed, slow or unreachable (Retry-After says when to try again), or none is configured',
  ),
};
const denied = {
  401: errorResponse('Missing or invalid API key'),
  403: errorResponse('The key lacks the required scope'),
};

/** The audited reveal, the seed's per-user migration and the admin migration job. */
export const SECRETS_ROUTES: RouteConfig[] = [
  {
    method: 'post',
    path: '/api/memories/{id}/secret',
    summary: 'Reveal the original content of one of your sensitive memories (audited)',
    description:
      'Needs the secrets:read scope. The body is ignored (an empty body is fine). Another user’s memory, a ' +
      'deleted one and one without a secret answer 404. Every reveal writes an audit row.',
    request: { params: z.object({ id: z.string().regex(/^\d+$/) }) },
    responses: {
      200: ok(revealedSecretSchema),
      ...denied,
      404: errorResponse('No sensitive memory with this id is yours'),
      ...unavailable,
    },
  },
  {
    method: 'post',
    path: '/api/memories/migrate-secrets',
    summary: 'Move secrets found in your stored memories into the secret store',
    description: 'Screens your memories that are not sensitive yet; safe to run again (moves nothing twice).',
    responses: { 200: ok(migrateOwnSecretsResponseSchema), ...denied, ...unavailable },
  },
  {
    method: 'post',
    path: '/api/admin/secrets/migrate',
    summary: 'Start the secret migration of your tenant (dry run by default)',
    description:
      'Queues a resumable job that screens every memory of the tenant in batches, moves detected secrets to ' +
      'the secret store and redacts the rows (bumping their sync sequence). Poll GET /api/admin/jobs/{id}: ' +
      'progress has scanned, found, migrated and failed.',
    request: { body: json(secretMigrationBodySchema) },
    responses: {
      202: { description: 'Job queued', ...json(secretMigrationResponseSchema) },
      ...ADMIN_DENIED,
      404: errorResponse('Unknown tenant'),
    },
  },
];
