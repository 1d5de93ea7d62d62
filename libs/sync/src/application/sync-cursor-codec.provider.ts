import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { ServerSecretRepository, TransactionRunner } from '@app/persistence';
import { SyncCursorCodec } from '../domain/sync-cursor';

const SECRET_NAME = 'sync_cursor_hmac';

/**
 * The cursor codec with the installation's key: SYNC_CURSOR_SECRET when configured, otherwise a
 * random key generated at first use and kept in the database, so every API process (and every
 * restart) signs and verifies with the same key without an operator having to set one.
 */
@Injectable()
export class SyncCursorCodecProvider {
  private codec: Promise<SyncCursorCodec> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'sync'>,
    private readonly tx: TransactionRunner,
    private readonly secrets: ServerSecretRepository,
  ) {}

  get(): Promise<SyncCursorCodec> {
    this.codec ??= this.load().catch((error: unknown) => {
      this.codec = undefined; // a database blip must not poison every later request
      throw error;
    });
    return this.codec;
  }

  private async load(): Promise<SyncCursorCodec> {
    const configured = this.config.sync.cursorSecret;
    if (configured !== undefined) return new SyncCursorCodec(Buffer.from(configured, 'utf8'));
    const key = await this.tx.asSystem((tx) => this.secrets.getOrCreate(tx, SECRET_NAME, randomBytes(32)));
    return new SyncCursorCodec(key);
  }
}
