import { Body, Controller, Delete, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  memoryIdSchema,
  PinMemoryUseCase,
  pinMemorySchema,
  pinResponse,
  presentPin,
  UnpinMemoryUseCase,
  unpinMemoryQuerySchema,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams } from '../openapi/route-schemas';

const ERRORS = {
  403: 'A team pin without an admin key',
  404: 'No such memory visible to the caller',
};

/** Pins: what a session's startup context lists first (yours, or the team's). */
@Controller('memories')
export class MemoryPinsController {
  constructor(
    private readonly pinMemory: PinMemoryUseCase,
    private readonly unpinMemory: UnpinMemoryUseCase,
  ) {}

  @Post(':id/pin')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'pinMemory',
    tag: 'memories',
    summary:
      'Pin a memory first in your startup context (scope user), or with an admin key in everyone’s (scope team); repeatable',
    params: memoryIdParams,
    body: pinMemorySchema,
    response: pinResponse,
    errors: { ...ERRORS, 409: 'A team pin of a private memory' },
  })
  async pin(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseInput(pinMemorySchema, body ?? {});
    return presentPin(await this.pinMemory.execute(principal, parseInput(memoryIdSchema, id), input.scope));
  }

  @Delete(':id/pin')
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'unpinMemory',
    tag: 'memories',
    summary: 'Remove your pin of a memory (scope user), or with an admin key the team pin; repeatable',
    params: memoryIdParams,
    query: unpinMemoryQuerySchema,
    response: pinResponse,
    errors: ERRORS,
  })
  async unpin(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: unknown) {
    const input = parseInput(unpinMemoryQuerySchema, query ?? {}, 400);
    return presentPin(await this.unpinMemory.execute(principal, parseInput(memoryIdSchema, id), input.scope));
  }
}
