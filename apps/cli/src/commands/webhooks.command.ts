import type { Command } from 'commander';
import { parseInput, type SystemActor } from '@app/tenancy';
import {
  createWebhookBody,
  DeleteWebhookUseCase,
  listDeliveriesQuery,
  ListWebhookDeliveriesUseCase,
  ListWebhooksUseCase,
  RedeliverWebhookUseCase,
  RegisterWebhookUseCase,
  rotateWebhookSecretBody,
  RotateWebhookSecretUseCase,
  toDeliveryResponse,
  toWebhookResponse,
  updateWebhookBody,
  UpdateWebhookUseCase,
  WebhooksModule,
  type WebhookResponse,
} from '@app/webhooks';
import type { CliContext } from '../cli-context';
import { json, table } from '../cli-output';

interface Globals {
  json?: boolean;
  tenant?: string;
}

const TENANT_OPTION = ['--tenant <slug>', 'tenant slug (default: DEFAULT_TENANT)'] as const;

function webhooksTable(webhooks: readonly WebhookResponse[]): string {
  if (webhooks.length === 0) return 'No webhook endpoints.\n';
  return table(
    ['ID', 'ENABLED', 'URL', 'EVENTS', 'SECRET', 'FAILURES', 'DISABLED BECAUSE'],
    webhooks.map((w) => [
      w.id,
      w.enabled ? 'yes' : 'no',
      w.url,
      w.events.join(','),
      `v${w.secret_version}`,
      String(w.failure_streak),
      w.disabled_reason ?? '',
    ]),
  );
}

/** The webhook use cases, with their module added to the CLI's container, and the operator of the tenant. */
async function withWebhooks<T>(
  context: CliContext,
  command: Command,
  run: (get: CliContext['get'], actor: SystemActor, globals: Globals) => Promise<T>,
): Promise<T> {
  const globals = command.optsWithGlobals<Globals>();
  context.include(WebhooksModule);
  return run((token) => context.get(token), await context.actor(globals.tenant), globals);
}

/**
 * `webhooks create|list|update|delete|rotate-secret|deliveries|redeliver`: the admin REST routes'
 * use cases and validation. Secrets are printed once, at create and rotate-secret.
 */
export function registerWebhooksCommands(program: Command, context: CliContext): void {
  const webhooks = program.command('webhooks').description('manage signed webhook endpoints');

  webhooks
    .command('create')
    .description('register an endpoint for events; its signing secret is printed once')
    .requiredOption('--url <url>', 'where events are POSTed (http or https)')
    .requiredOption('--events <list>', 'comma-separated event types, families such as memory.* or *')
    .option('--description <text>', 'what the endpoint is for')
    .option(...TENANT_OPTION)
    .action(async (options: { url: string; events: string; description?: string }, command: Command) => {
      const input = parseInput(createWebhookBody, {
        url: options.url,
        events: options.events,
        description: options.description,
      });
      await withWebhooks(context, command, async (get, actor, globals) => {
        const { endpoint, secret } = await (await get(RegisterWebhookUseCase)).execute(actor, input);
        const created = { ...toWebhookResponse(endpoint), secret };
        context.io.out(
          globals.json
            ? json(created)
            : `Registered webhook ${created.id} for ${created.events.join(', ')}.\n` +
                `Its signing secret, not shown again (verify webhook-signature with it):\n\n${secret}\n\n`,
        );
      });
    });

  webhooks
    .command('list')
    .description('list endpoints (never their secrets)')
    .option(...TENANT_OPTION)
    .action(async (_options: unknown, command: Command) => {
      await withWebhooks(context, command, async (get, actor, globals) => {
        const list = (await (await get(ListWebhooksUseCase)).list(actor)).map(toWebhookResponse);
        context.io.out(globals.json ? json({ webhooks: list }) : webhooksTable(list));
      });
    });

  webhooks
    .command('update <id>')
    .description('change an endpoint, or disable / re-enable it')
    .option('--url <url>', 'a new URL')
    .option('--events <list>', 'a new comma-separated list of event types')
    .option('--description <text>', 'a new description')
    .option('--enable', 're-enable it (clears its failure streak)')
    .option('--disable', 'stop sending to it')
    .option(...TENANT_OPTION)
    .action(
      async (
        id: string,
        options: { url?: string; events?: string; description?: string; enable?: boolean; disable?: boolean },
        command: Command,
      ) => {
        const input = parseInput(updateWebhookBody, {
          url: options.url,
          events: options.events,
          description: options.description,
          enabled: options.enable ? true : options.disable ? false : undefined,
        });
        await withWebhooks(context, command, async (get, actor, globals) => {
          const updated = toWebhookResponse(
            await (await get(UpdateWebhookUseCase)).execute(actor, id, input),
          );
          context.io.out(globals.json ? json(updated) : webhooksTable([updated]));
        });
      },
    );

  webhooks
    .command('delete <id>')
    .description('delete an endpoint with its delivery log and secrets')
    .option(...TENANT_OPTION)
    .action(async (id: string, _options: unknown, command: Command) => {
      await withWebhooks(context, command, async (get, actor, globals) => {
        await (await get(DeleteWebhookUseCase)).execute(actor, id);
        context.io.out(globals.json ? json({ deleted: id }) : `Deleted webhook ${id}.\n`);
      });
    });

  webhooks
    .command('rotate-secret <id>')
    .description('replace the signing secret; the old one keeps signing for the overlap')
    .option(
      '--overlap-seconds <n>',
      'how long the old secret still signs (default WEBHOOK_SECRET_OVERLAP_SECONDS)',
    )
    .option(...TENANT_OPTION)
    .action(async (id: string, options: { overlapSeconds?: string }, command: Command) => {
      const input = parseInput(rotateWebhookSecretBody, {
        overlap_seconds: options.overlapSeconds === undefined ? undefined : Number(options.overlapSeconds),
      });
      await withWebhooks(context, command, async (get, actor, globals) => {
        const { endpoint, secret } = await (
          await get(RotateWebhookSecretUseCase)
        ).execute(actor, id, input.overlap_seconds ?? context.config.webhooks.secretOverlapSeconds);
        const rotated = { ...toWebhookResponse(endpoint), secret };
        context.io.out(
          globals.json
            ? json(rotated)
            : `Rotated the secret of webhook ${id} (now v${rotated.secret_version}; the old one signs until ` +
                `${rotated.previous_secret_expires_at ?? 'now'}). The new secret, not shown again:\n\n${secret}\n\n`,
        );
      });
    });

  webhooks
    .command('deliveries <id>')
    .description('the endpoint’s deliveries, newest first')
    .option('--status <status>', 'pending, delivered, failed or skipped')
    .option('--limit <n>', 'how many (default 50, at most 200)')
    .option(...TENANT_OPTION)
    .action(async (id: string, options: { status?: string; limit?: string }, command: Command) => {
      const query = parseInput(listDeliveriesQuery, { status: options.status, limit: options.limit });
      await withWebhooks(context, command, async (get, actor, globals) => {
        const page = await (await get(ListWebhookDeliveriesUseCase)).list(actor, id, query);
        const list = page.deliveries.map(toDeliveryResponse);
        context.io.out(
          globals.json
            ? json({ deliveries: list, next_cursor: page.nextCursor })
            : list.length === 0
              ? 'No deliveries.\n'
              : table(
                  ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'LAST ERROR', 'CREATED'],
                  list.map((d) => [
                    d.id,
                    d.event_type,
                    d.status,
                    String(d.attempts),
                    d.last_status_code === null ? '' : String(d.last_status_code),
                    d.last_error ?? '',
                    d.created_at,
                  ]),
                ),
        );
      });
    });

  webhooks
    .command('redeliver <id> <delivery>')
    .description('send a delivery again (same event id and body)')
    .option(...TENANT_OPTION)
    .action(async (id: string, delivery: string, _options: unknown, command: Command) => {
      await withWebhooks(context, command, async (get, actor, globals) => {
        const queued = toDeliveryResponse(
          await (await get(RedeliverWebhookUseCase)).execute(actor, id, delivery),
        );
        context.io.out(
          globals.json ? json(queued) : `Queued delivery ${queued.id} (${queued.event_type}) again.\n`,
        );
      });
    });
}
