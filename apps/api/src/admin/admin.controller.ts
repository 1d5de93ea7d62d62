import { Body, Controller, Get, Inject, Patch, Query } from '@nestjs/common';
import {
  auditPageResponseSchema,
  auditQuery,
  auditQuerySchema,
  GetTenantSettingsUseCase,
  ListAuditLogUseCase,
  parseInput,
  tenantSettingsResponseSchema,
  toAuditEntryResponse,
  toTenantSettingsResponse,
  updateTenantSettingsBody,
  updateTenantSettingsBodySchema,
  UpdateTenantSettingsUseCase,
  type Principal,
  type TenantSettingsResponse,
} from '@app/tenancy';
import { GetTenantStatsUseCase, presentTenantStats, tenantStatsResponse } from '@app/jobs';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';

/** The tenant's settings, counts and audit log (admin scope, the caller's own tenant only). */
@Controller('admin')
@RequireScopes('admin')
export class AdminController {
  constructor(
    @Inject(GetTenantSettingsUseCase) private readonly getSettings: GetTenantSettingsUseCase,
    @Inject(UpdateTenantSettingsUseCase) private readonly updateSettings: UpdateTenantSettingsUseCase,
    @Inject(ListAuditLogUseCase) private readonly listAudit: ListAuditLogUseCase,
    @Inject(GetTenantStatsUseCase) private readonly tenantStats: GetTenantStatsUseCase,
  ) {}

  @Get('stats')
  @ApiRoute({
    operationId: 'getTenantStats',
    tag: 'admin',
    summary: 'What your tenant holds (memories, users, keys, sessions) and its job backlog',
    response: tenantStatsResponse,
  })
  async stats(@CurrentPrincipal() principal: Principal) {
    return presentTenantStats(await this.tenantStats.execute(principal));
  }

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

  @Get('audit')
  @ApiRoute({
    operationId: 'listAuditLog',
    tag: 'admin',
    summary: 'The tenant’s audit log, newest first, a page at a time',
    description:
      'Every write and admin action appends a row. Filter by actor (username or id), action (exact, or a ' +
      'prefix ending in `*`), target id and start time; follow `next_cursor` for older rows. Rows older than ' +
      'AUDIT_RETENTION_DAYS are deleted by the worker.',
    query: auditQuery,
    response: auditPageResponseSchema,
    errors: { 404: 'The actor is no user of this tenant', 422: 'A malformed filter, limit or cursor' },
  })
  async audit(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const page = await this.listAudit.execute(principal, parseInput(auditQuerySchema, query ?? {}));
    return { entries: page.items.map(toAuditEntryResponse), next_cursor: page.nextCursor };
  }
}
