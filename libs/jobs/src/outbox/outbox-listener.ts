import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { OUTBOX_CHANNEL } from './outbox.repository';

export interface OutboxListenerOptions {
  readonly connectionString: string;
  readonly applicationName: string;
  readonly onNotify: () => void;
  readonly reconnectDelayMs?: number;
}

/**
 * Holds one dedicated connection in LISTEN on the outbox channel, so the relay wakes right after
 * a write commits. Purely an accelerator: when the connection drops, the relay's polling covers
 * the gap while this reconnects (and every reconnect triggers a catch-up pass).
 */
export class OutboxListener {
  private readonly logger = new Logger('OutboxListener');
  private client: Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: OutboxListenerOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName,
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.channel === OUTBOX_CHANNEL) this.options.onNotify();
    });
    client.on('error', (error) => this.retry(client, error));
    client.on('end', () => this.retry(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      // Rows committed while we were not listening have sent their notification to nobody.
      this.options.onNotify();
    } catch (error) {
      this.retry(client, error);
    }
  }

  private retry(client: Client, error?: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.client && this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    if (error) this.logger.warn(`LISTEN connection lost (${String(error)}); polling until it is back`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, this.options.reconnectDelayMs ?? 2_000);
  }
}
