import type { PGlite } from '@electric-sql/pglite';

/** Extended-protocol messages that leave the backend waiting for more from the same client. */
const OPENS_CYCLE = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));
/** Messages that end a cycle with ReadyForQuery: Sync and a simple Query. */
const CLOSES_CYCLE = new Set(['S', 'Q'].map((c) => c.charCodeAt(0)));
const SYNC_MESSAGE = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * Keeps one client's extended-protocol cycle (Parse … Sync) together on the single PGlite backend.
 *
 * pglite-socket 0.2.x queues messages from all connections one message at a time and only keeps
 * a connection's messages together while `isInTransaction()` is true. Outside an explicit
 * transaction, a Parse from client A, then B's whole Parse/Bind/Execute/Sync, then A's Bind
 * makes A execute B's statement (reproduced; it happens when A's batch is split across TCP
 * reads, e.g. large parameters). Reporting "in transaction" until the cycle's Sync makes the
 * queue serve only that client until then. The socket server only calls isInTransaction,
 * runExclusive, execProtocolRawStream, exec and waitReady on the database it is given.
 */
export function guardWireProtocolCycles(db: PGlite): PGlite {
  let cycleOpen = false;
  return new Proxy(db, {
    get(target, property) {
      if (property === 'isInTransaction') {
        return () => cycleOpen || target.isInTransaction();
      }
      if (property === 'execProtocolRawStream') {
        return async (...args: Parameters<PGlite['execProtocolRawStream']>) => {
          const type = args[0][0];
          if (OPENS_CYCLE.has(type)) cycleOpen = true;
          else if (CLOSES_CYCLE.has(type)) cycleOpen = false;
          return target.execProtocolRawStream(...args);
        };
      }
      if (property === 'exec') {
        // The server rolls back with exec() when a client disconnects mid-transaction; end a
        // half-sent cycle first so the backend is not left skipping messages until a Sync.
        return async (...args: Parameters<PGlite['exec']>) => {
          if (cycleOpen) {
            cycleOpen = false;
            // execProtocol (not execProtocolRaw) so the reply is not streamed to the gone client.
            await target.execProtocol(SYNC_MESSAGE, { throwOnError: false });
          }
          return target.exec(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      // PGlite keeps its state in #private fields: methods must run with the real instance as `this`.
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
