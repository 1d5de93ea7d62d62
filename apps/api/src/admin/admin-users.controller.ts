import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  ChangeUserStatusUseCase,
  createUserBody,
  createUserBodySchema,
  CreateUserUseCase,
  listUsersQuery,
  ListUsersUseCase,
  parseInput,
  toUserResponse,
  userResponseSchema,
  usersPageResponseSchema,
  type Principal,
  type UserResponse,
} from '@app/tenancy';
import {
  DeleteUserUseCase,
  EraseUserDataUseCase,
  erasureReceiptResponse,
  presentErasureReceipt,
} from '@app/memories';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';
import { deletedUserResponse, userRefParams } from '../openapi/route-schemas';

/** Users of the caller's tenant: create, list, disable, enable, delete, erase their data. */
@Controller('admin/users')
@RequireScopes('admin')
export class AdminUsersController {
  constructor(
    @Inject(CreateUserUseCase) private readonly createUser: CreateUserUseCase,
    @Inject(ListUsersUseCase) private readonly listUsers: ListUsersUseCase,
    @Inject(ChangeUserStatusUseCase) private readonly changeStatus: ChangeUserStatusUseCase,
    @Inject(DeleteUserUseCase) private readonly deleteUser: DeleteUserUseCase,
    @Inject(EraseUserDataUseCase) private readonly eraseUserData: EraseUserDataUseCase,
  ) {}

  @Post()
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
  async add(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<UserResponse> {
    return toUserResponse(await this.createUser.execute(principal, parseInput(createUserBodySchema, body)));
  }

  @Get()
  @ApiRoute({
    operationId: 'listUsers',
    tag: 'admin',
    summary: 'List users by username, a page at a time',
    query: listUsersQuery,
    response: usersPageResponseSchema,
    errors: { 422: 'A malformed limit or cursor' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const page = await this.listUsers.execute(principal, parseInput(listUsersQuery, query ?? {}));
    return { users: page.items.map(toUserResponse), next_cursor: page.nextCursor };
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiRoute({
    operationId: 'disableUser',
    tag: 'admin',
    summary: 'Disable a user: their keys answer 401 until enabled again (audited)',
    params: userRefParams,
    response: userResponseSchema,
    errors: { 404: 'No such user in this tenant', 422: 'Disabling your own user' },
  })
  async disable(@CurrentPrincipal() principal: Principal, @Param('id') user: string): Promise<UserResponse> {
    return toUserResponse(await this.changeStatus.execute(principal, { user, disabled: true }));
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiRoute({
    operationId: 'enableUser',
    tag: 'admin',
    summary: 'Enable a disabled user: their unrevoked, unexpired keys work again (audited)',
    params: userRefParams,
    response: userResponseSchema,
    errors: { 404: 'No such user in this tenant' },
  })
  async enable(@CurrentPrincipal() principal: Principal, @Param('id') user: string): Promise<UserResponse> {
    return toUserResponse(await this.changeStatus.execute(principal, { user, disabled: false }));
  }

  @Delete(':id')
  @ApiRoute({
    operationId: 'deleteUser',
    tag: 'admin',
    summary: 'Delete a user: disable them, then erase their memory data (answers the user and the receipt)',
    params: userRefParams,
    response: deletedUserResponse,
    responseDescription: 'Disabled and erased; the user row, keys and audit log stay',
    errors: { 404: 'No such user in this tenant', 422: 'Deleting your own user' },
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') user: string) {
    const deleted = await this.deleteUser.execute(principal, user);
    return { user: toUserResponse(deleted.user), erasure: presentErasureReceipt(deleted.erasure) };
  }

  @Delete(':id/data')
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
