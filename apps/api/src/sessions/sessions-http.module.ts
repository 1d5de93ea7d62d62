import { Module } from '@nestjs/common';
import { SessionsModule } from '@app/sessions';
import { SessionsController } from './sessions.controller';

@Module({
  imports: [SessionsModule],
  controllers: [SessionsController],
})
export class SessionsHttpModule {}
