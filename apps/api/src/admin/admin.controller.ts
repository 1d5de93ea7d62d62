import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import {
  apiKeyResponseSchema,
  createApiKeyBody,
  createApiKeyBodySchema,
  CreateApiKeyUseCase,
  createdApiKeyResponseSchema,
  createUserBody,
  createUserBodySchema,
  CreateUserUseCase,
  listApiKeysQuery,
  listApiKeysQuerySchema,
  ListApiKeysUseCase,
  ListUsersUseCase,
  GetTenantSettingsUseCase,
  parseInput,
  RevokeApiKeyUseCase,
  tenantSettingsResponseSchema,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
  toTenantSettingsResponse,
  toUserResponse,
  updateTenantSettingsBody,
  updateTenantSettingsBodySchema,
  UpdateTenantSettingsUseCase,
  userResponseSchema,
  type ApiKeyResponse,
  type CreatedApiKeyResponse,
  type Principal,
  type TenantSettingsResponse,
  type UserResponse,
} from '@app/tenancy';
import { EraseUserDataUseCase, erasureReceiptResponse, presentErasureReceipt } from '@app/memories';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { keyIdParams, keysResponse, userRefParams, usersResponse } from '../openapi/route-schemas';

/**
 * User, key and settings management inside the caller's own tenant. Validate, call one use case,
 * shape the answer.
 */
@Controller('admin')
@RequireScopes('admin')
export class AdminController {
  constructor(
    @Inject(CreateUserUseCase) private readonly createUser: CreateUserUseCase,
    @Inject(ListUsersUseCase) private readonly listUsers: ListUsersUseCase,
    @Inject(CreateApiKeyUseCase) private readonly createApiKey: CreateApiKeyUseCase,
    @Inject(ListApiKeysUseCase) private readonly listApiKeys: ListApiKeysUseCase,
    @Inject(RevokeApiKeyUseCase) private readonly revokeApiKey: RevokeApiKeyUseCase,
    @Inject(EraseUserDataUseCase) private readonly eraseUserData: EraseUserDataUseCase,
    @Inject(GetTenantSettingsUseCase) private readonly getSettings: GetTenantSettingsUseCase,
    @Inject(UpdateTenantSettingsUseCase) private readonly updateSettings: UpdateTenantSettingsUseCase,
  ) {}

  @Get('settings')
  @ApiRoute({
    operationId: 'getTenantSettings',
    tag: 'admin',
    summary: 'The tenant’s settings',
    response: tenantSettingsResponseSchema,
  })
  async settings(@CurrentPrincipal() principal: Principal): Promise<TenantSettingsResponse> {
    return toTenantSettingsResponse(await this.getSettings.execute(principal));
  }

  @Patch('settings')
  @ApiRoute({
    operationId: 'updateTenantSettings',
    tag: 'admin',
    summary: 'Change the tenant’s settings (audited)',
    body: updateTenantSettingsBody,
    response: tenantSettingsResponseSchema,
    errors: { 422: 'No setting given, or a value of the wrong type' },
  })
  async changeSettings(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
  ): Promise<TenantSettingsResponse> {
    const patch = parseInput(updateTenantSettingsBodySchema, body ?? {});
    return toTenantSettingsResponse(await this.updateSettings.execute(principal, patch));
  }

  @Post('users')
  @HttpCode(201)
  @ApiRoute({
    operationId: 'createUser',
    tag: 'admin',
    summary: 'Create a user in the admin’s tenant',
    body: createUserBody,
    response: userResponseSchema,
    responseDescription: 'Created',
    errors: { 409: 'A user with this username exists' },
  })
  async addUser(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<UserResponse> {
    return toUserResponse(await this.createUser.execute(principal, parseInput(createUserBodySchema, body)));
  }

  @Get('users')
  @ApiRoute({ operationId: 'listUsers', tag: 'admin', summary: 'List users', response: usersResponse })
  async users(@CurrentPrincipal() principal: Principal): Promise<{ users: UserResponse[] }> {
    return { users: (await this.listUsers.execute(principal)).map(toUserResponse) };
  }

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
  async addKey(
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
    summary: 'List keys (never the key itself)',
    query: listApiKeysQuery,
    response: keysResponse,
    errors: { 404: 'No such user in this tenant', 422: 'Validation failed' },
  })
  async keys(
    @CurrentPrincipal() principal: Principal,
    @Query() query: unknown,
  ): Promise<{ keys: ApiKeyResponse[] }> {
    const keys = await this.listApiKeys.execute(principal, parseInput(listApiKeysQuerySchema, query ?? {}));
    const now = new Date();
    return { keys: keys.map((key) => toApiKeyResponse(key, now)) };
  }

  @Delete('keys/:id')
  @ApiRoute({
    operationId: 'revokeApiKey',
    tag: 'admin',
    summary: 'Revoke a key',
    params: keyIdParams,
    response: apiKeyResponseSchema,
    responseDescription: 'Revoked',
    errors: { 404: 'No such key in this tenant' },
  })
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id') keyId: string,
  ): Promise<ApiKeyResponse> {
    return toApiKeyResponse(await this.revokeApiKey.execute(principal, { keyId }));
  }

  @Delete('users/:id/data')
  @ApiRoute({
    operationId: 'eraseUserData',
    tag: 'admin',
    summary: "Erase a user's memory data (rows, vectors, history, queued jobs, secrets); answers a receipt",
    params: userRefParams,
    response: erasureReceiptResponse,
    responseDescription: 'Erased (the receipt counts what was removed); the erasure is audited',
    errors: { 404: 'No such user in this tenant' },
  })
  async erase(@CurrentPrincipal() principal: Principal, @Param('id') user: string) {
    return presentErasureReceipt(await this.eraseUserData.execute(principal, user));
  }
}
