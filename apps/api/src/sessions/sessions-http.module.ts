import { Module } from '@nestjs/common';
import { SessionsModule } from '@app/sessions';
import { SessionsController } from './sessions.controller';
import { StartupContextController } from './startup-context.controller';

@Module({
  imports: [SessionsModule],
  controllers: [SessionsController, StartupContextController],
})
export class SessionsHttpModule {}
