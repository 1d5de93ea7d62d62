import { OpenApiGeneratorV3, OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  bulkDeleteResponse,
  bulkDeleteSchema,
  deleteResponse,
  importMemoriesSchema,
  listMemoriesQuerySchema,
  memoryDetailResponse,
  memoryListResponse,
  purgeResponse,
  restoreResponse,
  storedMemoryResponse,
  storeMemorySchema,
  updateMemorySchema,
  updateResponse,
} from '@app/memories';
import {
  recallSchema,
  recallResponse,
  checkSchema,
  checkResponse,
  duplicatesQuerySchema,
  duplicatesResponse,
} from '@app/recall';
import { ADMIN_ROUTES } from './admin-routes';
import { errorBody, json, ok } from './openapi-helpers';
import { EMBEDDINGS_ADMIN_ROUTES } from './embeddings-admin-routes';
import { SECRETS_ROUTES } from './secrets-routes';

const idParam = z.object({ id: z.string().regex(/^\d+$/) });
const errors = {
  400: { description: 'Malformed request (bad JSON, NUL bytes, bad paging)', ...json(errorBody) },
  401: { description: 'Missing or invalid API key', ...json(errorBody) },
  403: { description: 'The key lacks the required scope', ...json(errorBody) },
  404: { description: "Not found (including another user's memory)", ...json(errorBody) },
  413: { description: 'Body too large', ...json(errorBody) },
  422: { description: 'Validation failed', ...json(errorBody) },
};

/** Routes described from the same zod contracts the controllers parse with. */
const ROUTES: RouteConfig[] = [
  {
    method: 'post',
    path: '/api/memories',
    summary: 'Store a memory (exact duplicates return the existing id)',
    request: {
      body: json(storeMemorySchema),
      headers: z.object({ 'idempotency-key': z.string().optional() }),
    },
    responses: { 200: ok(storedMemoryResponse), ...errors },
  },
  {
    method: 'get',
    path: '/api/memories',
    summary: "List the caller's memories, most important first",
    request: { query: listMemoriesQuerySchema },
    responses: { 200: ok(memoryListResponse), ...errors },
  },
  {
    method: 'get',
    path: '/api/memories/{id}',
    summary: 'Get one memory',
    request: { params: idParam },
    responses: { 200: ok(memoryDetailResponse), ...errors },
  },
  {
    method: 'put',
    path: '/api/memories/{id}',
    summary: 'Update fields of a memory',
    request: { params: idParam, body: json(updateMemorySchema) },
    responses: {
      200: ok(updateResponse),
      409: { description: 'Duplicate content', ...json(errorBody) },
      ...errors,
    },
  },
  {
    method: 'delete',
    path: '/api/memories/{id}',
    summary: 'Soft-delete a memory (repeatable)',
    request: { params: idParam },
    responses: { 200: ok(deleteResponse), ...errors },
  },
  {
    method: 'post',
    path: '/api/memories/{id}/restore',
    summary: 'Undo a soft delete',
    request: { params: idParam },
    responses: { 200: ok(restoreResponse), ...errors },
  },
  {
    method: 'delete',
    path: '/api/memories/{id}/purge',
    summary: 'Permanently remove a soft-deleted memory',
    request: { params: idParam },
    responses: {
      200: ok(purgeResponse),
      409: { description: 'Not deleted yet', ...json(errorBody) },
      ...errors,
    },
  },
  {
    method: 'post',
    path: '/api/memories/recall',
    summary: 'Hybrid recall: full-text and vector search fused with RRF, nudged by importance and recency',
    request: { body: json(recallSchema) },
    responses: { 200: ok(recallResponse), ...errors },
  },
  {
    method: 'post',
    path: '/api/memories/check',
    summary: 'Write guard: is this content new (ADD), close to a memory to update (UPDATE), or known (NOOP)?',
    request: { body: json(checkSchema) },
    responses: { 200: ok(checkResponse), ...errors },
  },
  {
    method: 'get',
    path: '/api/memories/duplicates',
    summary: "Near-duplicate pairs among the caller's most recent memories (bounded scan)",
    request: { query: duplicatesQuerySchema },
    responses: { 200: ok(duplicatesResponse), ...errors },
  },
  {
    method: 'post',
    path: '/api/memories/bulk-delete',
    summary: 'Soft-delete memories matching a filter (dry run by default)',
    request: { body: json(bulkDeleteSchema) },
    responses: { 200: ok(bulkDeleteResponse), ...errors },
  },
  {
    method: 'post',
    path: '/api/memories/import',
    summary: 'Store a batch of memories in one transaction',
    request: { body: json(importMemoriesSchema) },
    responses: { 200: ok(z.array(storedMemoryResponse)), ...errors },
  },
];

export function buildOpenApiDocument(extraRoutes: readonly RouteConfig[] = []) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  for (const route of [
    ...ROUTES,
    ...ADMIN_ROUTES,
    ...EMBEDDINGS_ADMIN_ROUTES,
    ...SECRETS_ROUTES,
    ...extraRoutes,
  ]) {
    registry.registerPath({ security: [{ bearer: [] }], ...route });
  }
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Memory service',
      version: '0.1.0',
      description: 'Shared memory for AI coding agents. Errors are `{"detail","code"}`.',
    },
  });
}
