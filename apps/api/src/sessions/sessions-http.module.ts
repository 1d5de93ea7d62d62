import { Module } from '@nestjs/common';
import { SessionsModule } from '@app/sessions';
import { SessionImportController } from './session-import.controller';
import { SessionsController } from './sessions.controller';

@Module({
  imports: [SessionsModule],
  controllers: [SessionsController, SessionImportController],
})
export class SessionsHttpModule {}
