import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-mapping';

/** Writes every error as `{"detail","code"}`; 5xx are logged with the request id, never their internals sent. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const mapped = toErrorResponse(exception);
    if (mapped.status >= 500) {
      this.logger.error({ err: exception, reqId: request.id }, 'request failed');
    } else if (mapped.refusedBy) {
      // A race or a value the contract let through: worth seeing, not an error of the server.
      this.logger.warn({ reqId: request.id, refusedBy: mapped.refusedBy }, 'database refused the write');
    }
    if (mapped.headers) void reply.headers(mapped.headers);
    // A streamed body its handler stopped reading (an error mid-upload): close the connection after
    // the answer rather than read the rest of an upload nobody wants.
    if (!request.raw.complete) void reply.header('connection', 'close');
    // A route's own Content-Type (`@Header`, e.g. the Prometheus text type) must not apply to the error.
    void reply.status(mapped.status).type('application/json; charset=utf-8').send(mapped.body);
  }
}
