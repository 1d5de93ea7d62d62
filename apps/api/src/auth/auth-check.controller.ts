import { Controller, Get } from '@nestjs/common';
import { type Principal } from '@app/tenancy';
import { ApiRoute } from '../openapi/api-route.decorator';
import { authCheckResponse } from '../openapi/route-schemas';
import { CurrentPrincipal } from './auth.decorators';

/** Lets a client verify its key (seed-compatible: `user_id` is the username). */
@Controller('auth-check')
export class AuthCheckController {
  @Get()
  @ApiRoute({
    operationId: 'checkAuth',
    tag: 'auth',
    summary: 'Check a key and see whose it is',
    response: authCheckResponse,
  })
  check(@CurrentPrincipal() principal: Principal): { status: 'ok'; user_id: string } {
    return { status: 'ok', user_id: principal.username };
  }
}
