import type { Server } from 'node:http';

/** Starts an internal endpoint (health, metrics) and resolves once it listens; rejects on EADDRINUSE. */
export async function listenInternal(server: Server, port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** Stops an internal endpoint at once: probes and scrapes are short and retried, so nothing drains. */
export async function closeInternal(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
