import { Controller, Get } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal } from './auth.decorators';

/** Lets a client verify its key (seed-compatible: `user_id` is the username). */
@Controller('auth-check')
export class AuthCheckController {
  @Get()
  check(@CurrentPrincipal() principal: Principal): { status: 'ok'; user_id: string } {
    return { status: 'ok', user_id: principal.username };
  }
}
