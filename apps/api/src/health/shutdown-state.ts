import { Injectable } from '@nestjs/common';

/**
 * Set on SIGTERM before the HTTP listener closes, so /health/ready reports 503 while in-flight
 * requests finish and the load balancer stops routing new ones here.
 */
@Injectable()
export class ShutdownState {
  private shuttingDown = false;

  beginShutdown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
