import { describe, expect, it } from 'vitest';
import { EMBEDDINGS_ADMIN_ROUTES } from './embeddings-admin-routes';
import { buildOpenApiDocument } from './openapi-document';

describe('OpenAPI for the embedding admin routes', () => {
  it('describes reindex (202 with a job id) and job progress from the zod contracts', () => {
    const doc = buildOpenApiDocument(EMBEDDINGS_ADMIN_ROUTES);
    const reindex = doc.paths['/api/admin/embeddings/reindex'].post;
    expect(Object.keys(reindex?.responses ?? {})).toEqual(expect.arrayContaining(['202', '409', '422']));
    const job = doc.paths['/api/admin/jobs/{id}'].get?.responses['200'] as {
      content: { 'application/json': { schema: { properties: Record<string, unknown> } } };
    };
    expect(Object.keys(job.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining([
        'id',
        'kind',
        'status',
        'progress',
        'error',
        'created_at',
        'started_at',
        'finished_at',
      ]),
    );
  });
});

describe('OpenAPI for the secret routes', () => {
  it('describes the reveal, the per-user migration and the admin migration job', () => {
    const doc = buildOpenApiDocument();
    const reveal = doc.paths['/api/memories/{id}/secret'].post?.responses ?? {};
    expect(Object.keys(reveal)).toEqual(expect.arrayContaining(['200', '403', '404', '503']));
    expect(doc.paths['/api/memories/migrate-secrets'].post).toBeDefined();
    expect(Object.keys(doc.paths['/api/admin/secrets/migrate'].post?.responses ?? {})).toContain('202');
  });
});
