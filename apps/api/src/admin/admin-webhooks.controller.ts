import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { parseInput, type Principal } from '@app/tenancy';
import {
  createWebhookBody,
  deliveriesPageResponseSchema,
  deliveryDetailResponseSchema,
  deliveryResponseSchema,
  DeleteWebhookUseCase,
  listDeliveriesQuery,
  ListWebhookDeliveriesUseCase,
  ListWebhooksUseCase,
  RedeliverWebhookUseCase,
  RegisterWebhookUseCase,
  rotateWebhookSecretBody,
  RotateWebhookSecretUseCase,
  toAttemptResponse,
  toDeliveryResponse,
  toWebhookResponse,
  updateWebhookBody,
  UpdateWebhookUseCase,
  WEBHOOK_EVENT_TYPES,
  webhookEventTypesResponseSchema,
  webhookResponseSchema,
  webhooksResponseSchema,
  webhookWithSecretResponseSchema,
} from '@app/webhooks';
import { z } from 'zod';
import { CurrentPrincipal, RequireScopes } from '../auth/auth.decorators';
import { ApiRoute } from '../openapi/api-route.decorator';

const webhookParams = z.object({ id: z.uuid().describe('Webhook endpoint id') });
const deliveryParams = webhookParams.extend({ deliveryId: z.uuid().describe('Delivery id') });

/**
 * Webhook endpoints of the caller's tenant (admin): register, list, change, delete, rotate the
 * signing secret, read the delivery log and redeliver. The secret is shown once, at registration and
 * at each rotation.
 */
@Controller('admin/webhooks')
@RequireScopes('admin')
export class AdminWebhooksController {
  constructor(
    @Inject(RegisterWebhookUseCase) private readonly register: RegisterWebhookUseCase,
    @Inject(ListWebhooksUseCase) private readonly endpoints: ListWebhooksUseCase,
    @Inject(UpdateWebhookUseCase) private readonly updateEndpoint: UpdateWebhookUseCase,
    @Inject(DeleteWebhookUseCase) private readonly deleteEndpoint: DeleteWebhookUseCase,
    @Inject(RotateWebhookSecretUseCase) private readonly rotateSecret: RotateWebhookSecretUseCase,
    @Inject(ListWebhookDeliveriesUseCase) private readonly deliveries: ListWebhookDeliveriesUseCase,
    @Inject(RedeliverWebhookUseCase) private readonly redeliverDelivery: RedeliverWebhookUseCase,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @ApiRoute({
    operationId: 'createWebhook',
    tag: 'admin',
    summary: 'Register a webhook endpoint (its signing secret is returned once)',
    description:
      'Events are POSTed as JSON and signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: ' +
      'HMAC-SHA256 of `<id>.<timestamp>.<body>` with the secret). The URL must reach a public address unless ' +
      'WEBHOOK_ALLOWED_NETWORKS allows its network. See the `webhooks` section of this document for the events.',
    body: createWebhookBody,
    response: webhookWithSecretResponseSchema,
    responseDescription: 'Created',
    errors: {
      400: 'The URL is not http(s), carries credentials, does not resolve, or reaches a refused address',
      422: 'Validation failed (unknown event type, too many endpoints)',
      503: 'No secret store is configured, or it is unavailable',
    },
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const { endpoint, secret } = await this.register.execute(
      principal,
      parseInput(createWebhookBody, body ?? {}),
    );
    return { ...toWebhookResponse(endpoint), secret };
  }

  @Get()
  @ApiRoute({
    operationId: 'listWebhooks',
    tag: 'admin',
    summary: 'List the tenant’s webhook endpoints (never their secrets)',
    response: webhooksResponseSchema,
  })
  async list(@CurrentPrincipal() principal: Principal) {
    return { webhooks: (await this.endpoints.list(principal)).map(toWebhookResponse) };
  }

  @Get('events')
  @ApiRoute({
    operationId: 'listWebhookEventTypes',
    tag: 'admin',
    summary: 'The event types an endpoint can subscribe to (their payloads: the `webhooks` section)',
    response: webhookEventTypesResponseSchema,
  })
  eventTypes() {
    return { events: [...WEBHOOK_EVENT_TYPES] };
  }

  @Get(':id')
  @ApiRoute({
    operationId: 'getWebhook',
    tag: 'admin',
    summary: 'Show a webhook endpoint',
    params: webhookParams,
    response: webhookResponseSchema,
    errors: { 404: 'No such webhook endpoint in this tenant' },
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return toWebhookResponse(await this.endpoints.get(principal, id));
  }

  @Patch(':id')
  @ApiRoute({
    operationId: 'updateWebhook',
    tag: 'admin',
    summary: 'Change a webhook endpoint’s URL, events or description; disable or re-enable it',
    params: webhookParams,
    body: updateWebhookBody,
    response: webhookResponseSchema,
    errors: {
      400: 'The URL is refused',
      404: 'No such webhook endpoint in this tenant',
      422: 'Validation failed',
    },
  })
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    return toWebhookResponse(
      await this.updateEndpoint.execute(principal, id, parseInput(updateWebhookBody, body ?? {})),
    );
  }

  @Delete(':id')
  @ApiRoute({
    operationId: 'deleteWebhook',
    tag: 'admin',
    summary: 'Delete a webhook endpoint with its delivery log and secrets',
    params: webhookParams,
    response: z.object({ deleted: z.uuid() }),
    responseDescription: 'Deleted',
    errors: { 404: 'No such webhook endpoint in this tenant' },
  })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<{ deleted: string }> {
    await this.deleteEndpoint.execute(principal, id);
    return { deleted: id };
  }

  @Post(':id/rotate-secret')
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @ApiRoute({
    operationId: 'rotateWebhookSecret',
    tag: 'admin',
    summary: 'Replace the signing secret; the old one keeps signing beside it for the overlap',
    params: webhookParams,
    body: rotateWebhookSecretBody,
    response: webhookWithSecretResponseSchema,
    responseDescription: 'The endpoint with its new secret (once)',
    errors: {
      404: 'No such webhook endpoint in this tenant',
      409: 'Another rotation of this secret committed at the same time (`webhook_rotation_conflict`)',
      503: 'The secret store is unavailable',
    },
  })
  async rotate(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseInput(rotateWebhookSecretBody, body ?? {});
    const { endpoint, secret } = await this.rotateSecret.execute(
      principal,
      id,
      input.overlap_seconds ?? this.config.webhooks.secretOverlapSeconds,
    );
    return { ...toWebhookResponse(endpoint), secret };
  }

  @Get(':id/deliveries')
  @ApiRoute({
    operationId: 'listWebhookDeliveries',
    tag: 'admin',
    summary: 'The endpoint’s deliveries, newest first, with their status and last attempt',
    params: webhookParams,
    query: listDeliveriesQuery,
    response: deliveriesPageResponseSchema,
    errors: { 404: 'No such webhook endpoint in this tenant', 422: 'Validation failed' },
  })
  async listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const page = await this.deliveries.list(principal, id, parseInput(listDeliveriesQuery, query ?? {}));
    return { deliveries: page.deliveries.map(toDeliveryResponse), next_cursor: page.nextCursor };
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiRoute({
    operationId: 'getWebhookDelivery',
    tag: 'admin',
    summary: 'One delivery with every attempt (status code, duration, error)',
    params: deliveryParams,
    response: deliveryDetailResponseSchema,
    errors: { 404: 'No such webhook endpoint or delivery in this tenant' },
  })
  async getDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ) {
    const { delivery, attempts } = await this.deliveries.get(principal, id, deliveryId);
    return { ...toDeliveryResponse(delivery), attempt_log: attempts.map(toAttemptResponse) };
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiRoute({
    operationId: 'redeliverWebhook',
    tag: 'admin',
    summary: 'Send a delivery again (same event id and body; a new round of attempts)',
    params: deliveryParams,
    response: deliveryResponseSchema,
    responseDescription: 'Queued',
    errors: {
      404: 'No such webhook endpoint or delivery in this tenant',
      409: 'The endpoint is disabled: enable it first',
    },
  })
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ) {
    return toDeliveryResponse(await this.redeliverDelivery.execute(principal, id, deliveryId));
  }
}
