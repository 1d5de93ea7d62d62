import { Body, Controller, Delete, Get, Header, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  createApiKeyBodySchema,
  CreateApiKeyUseCase,
  createUserBodySchema,
  CreateUserUseCase,
  listApiKeysQuerySchema,
  ListApiKeysUseCase,
  ListUsersUseCase,
  parseInput,
  RevokeApiKeyUseCase,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
  toUserResponse,
  type ApiKeyResponse,
  type CreatedApiKeyResponse,
  type Principal,
  type UserResponse,
} from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';

/** User and key management inside the caller's own tenant. Validate, call one use case, shape the answer. */
@Controller('admin')
@RequireScopes('admin')
export class AdminController {
  constructor(
    @Inject(CreateUserUseCase) private readonly createUser: CreateUserUseCase,
    @Inject(ListUsersUseCase) private readonly listUsers: ListUsersUseCase,
    @Inject(CreateApiKeyUseCase) private readonly createApiKey: CreateApiKeyUseCase,
    @Inject(ListApiKeysUseCase) private readonly listApiKeys: ListApiKeysUseCase,
    @Inject(RevokeApiKeyUseCase) private readonly revokeApiKey: RevokeApiKeyUseCase,
  ) {}

  @Post('users')
  @HttpCode(201)
  async addUser(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<UserResponse> {
    return toUserResponse(await this.createUser.execute(principal, parseInput(createUserBodySchema, body)));
  }

  @Get('users')
  async users(@CurrentPrincipal() principal: Principal): Promise<{ users: UserResponse[] }> {
    return { users: (await this.listUsers.execute(principal)).map(toUserResponse) };
  }

  /** `:id` is a username or a user id. The key is in this response only. */
  @Post('users/:id/keys')
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  async addKey(
    @CurrentPrincipal() principal: Principal,
    @Param('id') user: string,
    @Body() body: unknown,
  ): Promise<CreatedApiKeyResponse> {
    const input = parseInput(createApiKeyBodySchema, body ?? {});
    return toCreatedApiKeyResponse(await this.createApiKey.execute(principal, { ...input, user }));
  }

  @Get('keys')
  async keys(
    @CurrentPrincipal() principal: Principal,
    @Query() query: unknown,
  ): Promise<{ keys: ApiKeyResponse[] }> {
    const keys = await this.listApiKeys.execute(principal, parseInput(listApiKeysQuerySchema, query ?? {}));
    const now = new Date();
    return { keys: keys.map((key) => toApiKeyResponse(key, now)) };
  }

  @Delete('keys/:id')
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('id') keyId: string,
  ): Promise<ApiKeyResponse> {
    return toApiKeyResponse(await this.revokeApiKey.execute(principal, { keyId }));
  }
}
