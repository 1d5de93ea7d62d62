import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi-document';

describe('OpenAPI document', () => {
  it('describes the memory routes from the zod contracts', () => {
    const doc = buildOpenApiDocument();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/memories',
        '/api/memories/{id}',
        '/api/memories/import',
        '/api/admin/users/{id}/keys',
      ]),
    );
    const body = doc.paths['/api/memories'].post?.requestBody as {
      content: {
        'application/json': { schema: { properties: Record<string, unknown>; required?: string[] } };
      };
    };
    expect(Object.keys(body.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['content', 'category', 'tags', 'importance']),
    );
    expect(body.content['application/json'].schema.required).toEqual(['content']);
  });
});
