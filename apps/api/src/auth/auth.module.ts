import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TenancyModule } from '@app/tenancy';
import { ApiKeyGuard } from './api-key.guard';
import { AuthCheckController } from './auth-check.controller';
import { BootstrapResultHolder } from './bootstrap-result.holder';
import { ConsoleSessionAuth } from './console-session-auth';

export { BootstrapResultHolder } from './bootstrap-result.holder';

/**
 * API-key authentication for every route (global guard; opt out with @Public()), the env
 * bootstrap at startup, and `GET /api/auth-check`.
 */
@Module({
  imports: [TenancyModule],
  controllers: [AuthCheckController],
  providers: [BootstrapResultHolder, ConsoleSessionAuth, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [BootstrapResultHolder, ConsoleSessionAuth],
})
export class AuthModule {}
