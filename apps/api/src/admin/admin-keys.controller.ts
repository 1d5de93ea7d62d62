import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  apiKeyResponseSchema,
  createApiKeyBody,
  createApiKeyBodySchema,
  CreateApiKeyUseCase,
  createdApiKeyResponseSchema,
  keysPageResponseSchema,
  listApiKeysQuery,
  listApiKeysQuerySchema,
  ListApiKeysUseCase,
  parseInput,
  RevokeApiKeyUseCase,
  RotateApiKeyUseCase,
  rotatedApiKeyResponseSchema,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
  toRotatedApiKeyResponse,
  type ApiKeyResponse,
  type CreatedApiKeyResponse,
  type Principal,
  type RotatedApiKeyResponse,
} from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { keyRefParams, userRefParams } from '../openapi/route-schemas';

/** API keys of the caller's tenant: issue, list, rotate, revoke. Keys are shown once, at issue. */
@Controller('admin')
@RequireScopes('admin')
export class AdminKeysController {
  constructor(
    @Inject(CreateApiKeyUseCase) private readonly createApiKey: CreateApiKeyUseCase,
    @Inject(ListApiKeysUseCase) private readonly listApiKeys: ListApiKeysUseCase,
    @Inject(RotateApiKeyUseCase) private readonly rotateApiKey: RotateApiKeyUseCase,
    @Inject(RevokeApiKeyUseCase) private readonly revokeApiKey: RevokeApiKeyUseCase,
  ) {}

  /** `:id` is a username or a user id. The key is in this response only. */
  @Post('users/:id/keys')
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @ApiRoute({
    operationId: 'createApiKey',
    tag: 'admin',
    summary: 'Create a key for a user (the key is returned once)',
    params: userRefParams,
    body: createApiKeyBody,
    response: createdApiKeyResponseSchema,
    responseDescription: 'Created',
    errors: { 404: 'No such user in this tenant' },
  })
  async add(
    @CurrentPrincipal() principal: Principal,
    @Param('id') user: string,
    @Body() body: unknown,
  ): Promise<CreatedApiKeyResponse> {
    const input = parseInput(createApiKeyBodySchema, body ?? {});
    return toCreatedApiKeyResponse(await this.createApiKey.execute(principal, { ...input, user }));
  }

  @Get('keys')
  @ApiRoute({
    operationId: 'listApiKeys',
    tag: 'admin',
    summary: 'List keys by user, then creation, a page at a time (never the key itself)',
    query: listApiKeysQuery,
    response: keysPageResponseSchema,
    errors: { 404: 'No such user in this tenant', 422: 'Validation failed' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const page = await this.listApiKeys.execute(principal, parseInput(listApiKeysQuerySchema, query ?? {}));
    const now = new Date();
    return { keys: page.items.map((key) => toApiKeyResponse(key, now)), next_cursor: page.nextCursor };
  }

  @Post('keys/:id/rotate')
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @ApiRoute({
    operationId: 'rotateApiKey',
    tag: 'admin',
    summary: 'Replace a key with a new one; the old one works for KEY_ROTATION_GRACE_SECONDS more',
    description:
      'The new key has the same user, name, scopes, default visibility and expiry, and is returned once. ' +
      'The old key names it in `replaced_by` and expires when the grace period ends (audited as api_key.rotate).',
    params: keyRefParams,
    response: rotatedApiKeyResponseSchema,
    responseDescription: 'The new key (once) and the old one with its new expiry',
    errors: {
      404: 'No such key in this tenant',
      409: 'The key is revoked, expired or already rotated, or the prefix names several keys',
      422: 'An env key (rotate it in the environment), or its user is disabled',
    },
  })
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Param('id') keyId: string,
  ): Promise<RotatedApiKeyResponse> {
    return toRotatedApiKeyResponse(await this.rotateApiKey.execute(principal, { keyId }));
  }

  @Delete('keys/:id')
  @ApiRoute({
    operationId: 'revokeApiKey',
    tag: 'admin',
    summary: 'Revoke a key (by id, or by the prefix the list shows)',
    params: keyRefParams,
    response: apiKeyResponseSchema,
    responseDescription: 'Revoked',
    errors: { 404: 'No such key in this tenant', 409: 'The prefix names several keys: use the id' },
  })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id') keyId: string,
  ): Promise<ApiKeyResponse> {
    return toApiKeyResponse(await this.revokeApiKey.execute(principal, { keyId }));
  }
}
