import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where the web console is served: a static build (apps/ui) with client-side routes under it. */
export const CONSOLE_PATH = '/ui';

/**
 * Only the console's own origin, no inline script or style, no framing: the page holds an API key in
 * session storage, so nothing from elsewhere may run in it or frame it.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/**
 * The built console: `dist/ui` beside the compiled API (dist/apps/api/src/http → dist/ui), or the
 * repository's dist/ui when the API runs from sources (tests).
 */
export function consoleBuildDir(): string | undefined {
  return [resolve(__dirname, '../../../../ui'), resolve(__dirname, '../../../../dist/ui')].find((dir) =>
    existsSync(join(dir, 'index.html')),
  );
}

/**
 * Serves the console at /ui: hashed assets (`/ui/assets/*`) cached for a year, any other path the
 * index page (never cached) so the client's routes survive a reload. Not behind an API key: the
 * page holds no data; it asks for a key and calls /api with it.
 */
export async function registerWebConsole(fastify: FastifyInstance, root = consoleBuildDir()): Promise<void> {
  await fastify.register(
    async (ui) => {
      ui.addHook('onSend', async (_request, reply, payload) => {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) void reply.header(name, value);
        return payload;
      });
      if (!root) {
        const notBuilt = async (_request: unknown, reply: FastifyReply) =>
          reply.code(404).type('text/plain').send('The web console is not built: run `npm run build`.\n');
        ui.get('/', notBuilt);
        ui.get('/*', notBuilt);
        return;
      }
      await ui.register(fastifyStatic, { root, serve: false });
      const topLevelFiles = new Set(
        readdirSync(root, { withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => entry.name),
      );
      const indexPage = (reply: FastifyReply) =>
        reply.header('cache-control', 'no-cache').sendFile('index.html', { maxAge: 0, cacheControl: false });

      ui.get('/assets/*', (request, reply) => {
        const name = (request.params as { '*': string })['*'];
        return reply.sendFile(join('assets', name), { maxAge: '365d', immutable: true });
      });
      ui.get('/', (_request, reply) => indexPage(reply));
      ui.get('/*', (request, reply) => {
        const name = (request.params as { '*': string })['*'];
        if (topLevelFiles.has(name) && name !== 'index.html') {
          return reply.sendFile(name, { maxAge: '1h' });
        }
        return indexPage(reply);
      });
    },
    { prefix: CONSOLE_PATH },
  );
}
