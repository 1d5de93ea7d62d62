import { Controller, Get, Inject } from '@nestjs/common';
import {
  GetTenantUsageUseCase,
  tenantUsageResponseSchema,
  toTenantUsageResponse,
  type Principal,
  type TenantUsageResponse,
} from '@app/tenancy';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';

/** What the caller's tenant uses of its quotas; any authenticated key may ask. */
@Controller('usage')
export class UsageController {
  constructor(@Inject(GetTenantUsageUseCase) private readonly getUsage: GetTenantUsageUseCase) {}

  @Get()
  @ApiRoute({
    operationId: 'getUsage',
    tag: 'usage',
    summary: "The caller's tenant: memories, content bytes and today's sessions against its quotas",
    description:
      'A limit of null is unlimited. Writes past a quota answer 429 `quota_exceeded` (memories, ' +
      'sessions per day) or 413 `storage_quota_exceeded` (content bytes).',
    response: tenantUsageResponseSchema,
  })
  async usage(@CurrentPrincipal() principal: Principal): Promise<TenantUsageResponse> {
    return toTenantUsageResponse(await this.getUsage.execute(principal));
  }
}
