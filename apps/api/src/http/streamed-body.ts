import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { JSON_LINES_TYPES } from './input-guards';
import { RequestValidationError } from './request-validation.error';

const MIB = 1_048_576;

/**
 * The body of a STREAMED_BODY route as chunks, read as the consumer asks for them and cut at
 * `maxBytes` (413; a declared Content-Length over it answers before anything is read). Stopping
 * early leaves the request stream open, so the error can still be answered; the exception filter
 * then closes the connection instead of reading the rest.
 */
export function streamedBody(
  request: FastifyRequest,
  options: { maxBytes: number; limitName: string },
): AsyncIterable<Buffer> {
  const body = request.body;
  if (!(body instanceof Readable)) {
    throw new RequestValidationError(
      `Send the body as JSON Lines, with Content-Type ${JSON_LINES_TYPES.join(' or ')}`,
      415,
      'unsupported_media_type',
    );
  }
  const tooLarge = () =>
    new RequestValidationError(
      `The body is over ${sizeText(options.maxBytes)}, the limit of this route (${options.limitName})`,
      413,
      'body_too_large',
    );
  if (Number(request.headers['content-length']) > options.maxBytes) throw tooLarge();
  return (async function* () {
    let received = 0;
    try {
      for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > options.maxBytes) throw tooLarge();
        yield chunk;
      }
    } catch (error) {
      if (error instanceof RequestValidationError) throw error;
      throw new RequestValidationError(
        'The upload broke off before the end of the body',
        400,
        'upload_interrupted',
      );
    }
  })();
}

function sizeText(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}
