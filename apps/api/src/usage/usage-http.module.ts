import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { UsageController } from './usage.controller';

/** `GET /api/usage`: the caller's tenant against its quotas, for any key. */
@Module({
  imports: [TenancyModule],
  controllers: [UsageController],
})
export class UsageHttpModule {}
