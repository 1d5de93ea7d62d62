import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ADMIN_DENIED, json } from './openapi-helpers';
import {
  apiKeyResponseSchema,
  createApiKeyBody,
  createdApiKeyResponseSchema,
  createUserBody,
  listApiKeysQuery,
  userResponseSchema,
} from '@app/tenancy';

const denied = ADMIN_DENIED;

/** Admin and identity routes, described from the tenancy contracts. */
export const ADMIN_ROUTES: RouteConfig[] = [
  {
    method: 'get',
    path: '/api/auth-check',
    summary: 'Check a key and see whose it is',
    responses: {
      200: { description: 'OK', ...json(z.object({ status: z.literal('ok'), user_id: z.string() })) },
    },
  },
  {
    method: 'post',
    path: '/api/admin/users',
    summary: 'Create a user in the admin’s tenant',
    request: { body: json(createUserBody) },
    responses: { 201: { description: 'Created', ...json(userResponseSchema) }, ...denied },
  },
  {
    method: 'get',
    path: '/api/admin/users',
    summary: 'List users',
    responses: {
      200: { description: 'OK', ...json(z.object({ users: z.array(userResponseSchema) })) },
      ...denied,
    },
  },
  {
    method: 'post',
    path: '/api/admin/users/{id}/keys',
    summary: 'Create a key for a user (the key is returned once)',
    request: { params: z.object({ id: z.string() }), body: json(createApiKeyBody) },
    responses: { 201: { description: 'Created', ...json(createdApiKeyResponseSchema) }, ...denied },
  },
  {
    method: 'get',
    path: '/api/admin/keys',
    summary: 'List keys (never the key itself)',
    request: { query: listApiKeysQuery },
    responses: {
      200: { description: 'OK', ...json(z.object({ keys: z.array(apiKeyResponseSchema) })) },
      ...denied,
    },
  },
  {
    method: 'delete',
    path: '/api/admin/keys/{id}',
    summary: 'Revoke a key',
    request: { params: z.object({ id: z.string() }) },
    responses: { 200: { description: 'Revoked', ...json(apiKeyResponseSchema) }, ...denied },
  },
];
