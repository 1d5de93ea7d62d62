import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { prettyDestination, prettyMessage } from './logger-options';

describe('the pretty log format', () => {
  it('writes one short line per entry: time, level, [context] message', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const logger = pino({ name: 'memory-api' }, prettyDestination({ colorize: false, destination: out }));
    logger.info({ context: 'Bootstrap' }, 'memory service listening');
    logger.warn(
      {
        req: { id: 'r1', method: 'GET', url: '/api/nothing', headers: { host: 'x' } },
        res: { statusCode: 404, headers: {} },
        responseTime: 3,
      },
      'request completed',
    );
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Bootstrap\] memory service listening$/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: GET \/api\/nothing 404 3ms$/);
    expect(text).not.toContain('hostname');
  });

  it('keeps a request message other than "request completed"', () => {
    const log = {
      req: { method: 'POST', url: '/mcp' },
      res: { statusCode: 500 },
      responseTime: 9,
      msg: 'request errored',
    };
    expect(prettyMessage(log, 'msg')).toBe('POST /mcp 500 9ms request errored');
    expect(prettyMessage({ msg: 'plain' }, 'msg')).toBe('plain');
  });
});
