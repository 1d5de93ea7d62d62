import { z } from 'zod';
import { PIN_SCOPES } from '../../domain/pin';
import type { PinResult } from '../application/pin-memory.use-case';

/** Wire contract of pins, shared by REST, MCP and OpenAPI. */

export const pinScopeSchema = z
  .enum(PIN_SCOPES)
  .default('user')
  .describe(
    'user (default): first in your own startup context; team: first in everyone’s (admin key, team-visible memory)',
  );

export const pinMemorySchema = z.strictObject({ scope: pinScopeSchema });
export const unpinMemoryQuerySchema = z.strictObject({ scope: pinScopeSchema });

export const pinResponse = z.object({
  id: z.number().int(),
  scope: z.enum(PIN_SCOPES),
  pinned: z.boolean().describe('whether the pin is there now'),
  changed: z.boolean().describe('false when the memory already was (or was not) pinned so'),
});

export function presentPin(result: PinResult): z.infer<typeof pinResponse> {
  return { id: result.id, scope: result.scope, pinned: result.pinned, changed: result.changed };
}
