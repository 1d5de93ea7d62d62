import { Module } from '@nestjs/common';
import { TenancyModule } from '@app/tenancy';
import { AdminController } from './admin.controller';

/** `/api/admin/*`: users and API keys of the caller's tenant (admin scope). */
@Module({ imports: [TenancyModule], controllers: [AdminController] })
export class AdminModule {}
