import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';
import {
  codeEventIdSchema,
  codeEventResponse,
  codeEventSchema,
  GetCodeEventUseCase,
  memoryIdSchema,
  presentCodeEvent,
  presentVerify,
  projectBranchParamsSchema,
  RecordCodeEventUseCase,
  toBranchEvent,
  toNewCodeEvent,
  toVerifyInput,
  VerifyMemoryUseCase,
  verifyMemoryResponse,
  verifyMemorySchema,
} from '@app/memories';
import { type Principal } from '@app/tenancy';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { parseInput } from '../http/request-validation.error';
import { ApiRoute } from '../openapi/api-route.decorator';
import { memoryIdParams } from '../openapi/route-schemas';

const codeEventParams = z.object({ id: codeEventIdSchema });

/** Memories that know the code: code events (what changed) and verify (it still holds, or not). */
@Controller()
export class CodeEventsController {
  constructor(
    private readonly recordEvent: RecordCodeEventUseCase,
    private readonly getEvent: GetCodeEventUseCase,
    private readonly verifyMemory: VerifyMemoryUseCase,
  ) {}

  @Post('code-events')
  @HttpCode(202)
  @RequireScopes('code-events:write')
  @ApiRoute({
    operationId: 'recordCodeEvent',
    tag: 'code',
    summary:
      'Report what changed in a repository (paths and git blob ids, never contents): the worker marks memories anchored to those paths stale, orphaned or moved',
    body: codeEventSchema,
    response: codeEventResponse,
    errors: { 403: 'A key without code-events:write', 422: 'Validation failed' },
  })
  async record(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const event = toNewCodeEvent(parseInput(codeEventSchema, body));
    return presentCodeEvent(await this.recordEvent.execute(principal, event));
  }

  @Post('projects/:project/branches/:branch/promote')
  @HttpCode(202)
  @RequireScopes('code-events:write')
  @ApiRoute({
    operationId: 'promoteBranch',
    tag: 'code',
    summary:
      "A branch was merged: its branch-scoped memories become the project's (recorded as a merge event; the worker applies it)",
    params: projectBranchParamsSchema,
    response: codeEventResponse,
    errors: { 403: 'A key without code-events:write', 422: 'An invalid project or branch' },
  })
  async promote(
    @CurrentPrincipal() principal: Principal,
    @Param('project') project: string,
    @Param('branch') branch: string,
  ) {
    const event = toBranchEvent(parseInput(projectBranchParamsSchema, { project, branch }), 'merged');
    return presentCodeEvent(await this.recordEvent.execute(principal, event));
  }

  @Delete('projects/:project/branches/:branch')
  @HttpCode(202)
  @RequireScopes('code-events:write')
  @ApiRoute({
    operationId: 'dropBranch',
    tag: 'code',
    summary:
      'A branch was deleted without a merge: its branch-scoped memories are deleted (restorable; recorded as an event the worker applies)',
    params: projectBranchParamsSchema,
    response: codeEventResponse,
    errors: { 403: 'A key without code-events:write', 422: 'An invalid project or branch' },
  })
  async drop(
    @CurrentPrincipal() principal: Principal,
    @Param('project') project: string,
    @Param('branch') branch: string,
  ) {
    const event = toBranchEvent(parseInput(projectBranchParamsSchema, { project, branch }), 'deleted');
    return presentCodeEvent(await this.recordEvent.execute(principal, event));
  }

  @Get('code-events/:id')
  @RequireScopes('memories:read')
  @ApiRoute({
    operationId: 'getCodeEvent',
    tag: 'code',
    summary: 'A code event of your team, with when the worker applied it and how many anchors it changed',
    params: codeEventParams,
    response: codeEventResponse,
    errors: { 404: 'No such code event in your team' },
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentCodeEvent(await this.getEvent.execute(principal, parseInput(codeEventIdSchema, id)));
  }

  @Post('memories/:id/verify')
  @HttpCode(200)
  @RequireScopes('memories:write')
  @ApiRoute({
    operationId: 'verifyMemory',
    tag: 'code',
    summary:
      'Confirm a memory still holds for the code as it is now (clears stale, records a version), or correct it (a proposal when it is not yours to change)',
    params: memoryIdParams,
    body: verifyMemorySchema,
    response: verifyMemoryResponse,
    errors: {
      403: 'Confirming a teammate’s memory you may not change (correct it instead)',
      404: 'No such memory visible to the caller',
      409: 'The memory has no anchors',
      422: 'Validation failed',
    },
  })
  async verify(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = toVerifyInput(parseInput(verifyMemorySchema, body ?? {}));
    return presentVerify(await this.verifyMemory.execute(principal, parseInput(memoryIdSchema, id), input));
  }
}
