import { Module } from '@nestjs/common';
import { SessionsModule } from '@app/sessions';
import { SessionImportController } from './session-import.controller';
import { SessionsController } from './sessions.controller';
import { StartupContextController } from './startup-context.controller';

@Module({
  imports: [SessionsModule],
  controllers: [SessionsController, SessionImportController, StartupContextController],
})
export class SessionsHttpModule {}
