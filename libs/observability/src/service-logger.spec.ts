import { describe, expect, it, vi } from 'vitest';
import type { Logger } from 'nestjs-pino';
import { ServiceLogger } from './service-logger';

describe('ServiceLogger', () => {
  const pino = () =>
    ({ log: vi.fn(), debug: vi.fn(), error: vi.fn() }) as unknown as Logger & {
      log: ReturnType<typeof vi.fn>;
      debug: ReturnType<typeof vi.fn>;
    };

  it('logs Nest’s route and module mapping lines at debug, everything else at info', () => {
    const target = pino();
    const logger = new ServiceLogger(target);
    logger.log('Mapped {/api/memories, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('memory service listening on http://127.0.0.1:8080', 'Bootstrap');
    expect(target.debug).toHaveBeenCalledTimes(3);
    expect(target.log).toHaveBeenCalledTimes(1);
    expect(target.log).toHaveBeenCalledWith('memory service listening on http://127.0.0.1:8080', 'Bootstrap');
  });
});
