import type { ChaosTally } from '@app/testing';
import type { Reply } from './transport';
import {
  MARKER_PATTERN,
  SECRET_PATTERN,
  type Actor,
  type MemoryModel,
  type Outcome,
  type View,
  type World,
} from './world';

/**
 * Holds every answer to the model: no marker the caller may not see (a leak), no secret outside
 * an allowed reveal (a leak), and the answer the rules predict. Failures go to the tally and to
 * the current run, which fails its fast-check property at the end of the step.
 */
export class Auditor {
  private runFailures: string[] = [];

  constructor(
    private readonly world: World,
    private readonly tally: ChaosTally,
  ) {}

  /** Starts a new fast-check run; returns the failures of the one before. */
  startRun(): void {
    this.runFailures = [];
  }

  get failures(): readonly string[] {
    return this.runFailures;
  }

  check(label: string, ok: boolean, detail: () => string): boolean {
    this.tally.check(label, ok, detail);
    if (!ok) this.runFailures.push(`${label}: ${detail()}`);
    return ok;
  }

  /** Every marker and secret in the answer must be one `actor` may see under `view`. */
  scan(actor: Actor, reply: Reply, view: View, revealOf?: MemoryModel): void {
    let leaks = 0;
    const found: string[] = [];
    const markers = new Set(reply.text.match(MARKER_PATTERN) ?? []);
    this.tally.add('markers checked', markers.size);
    for (const marker of markers) {
      const entity = this.world.byMarker.get(marker);
      if (!entity) {
        found.push(`${marker} (not made by the suite: an unacknowledged write?)`);
        leaks++;
      } else if (!this.world.allowed(actor, entity, view)) {
        leaks++;
        found.push(
          entity.kind === 'memory'
            ? this.world.describe(entity.memory)
            : `session ${entity.session.id} ${entity.session.marker} of ${entity.session.owner}@${entity.session.tenant}`,
        );
      }
    }
    for (const secret of new Set(reply.text.match(SECRET_PATTERN) ?? [])) {
      const owner = this.world.bySecret.get(secret);
      const revealed =
        revealOf !== undefined &&
        owner === revealOf &&
        revealOf.secret === secret &&
        this.world.reveal(actor, revealOf) === 'ok';
      if (!revealed) {
        leaks++;
        found.push(`secret plaintext of ${owner ? this.world.describe(owner) : 'an unknown memory'}`);
      }
    }
    if (leaks > 0) this.tally.add('leaks', leaks);
    this.check(
      `${reply.label} shows ${actor.name} only what ${actor.name} may see`,
      leaks === 0,
      () => `${actor.name}@${actor.tenant} saw ${found.join('; ')} in ${reply.text.slice(0, 400)}`,
    );
  }

  /** The answer is the one the rules predict. */
  expect(actor: Actor, reply: Reply, expected: Outcome, about?: MemoryModel): boolean {
    if (expected === 'not_found') this.tally.add('404s predicted');
    if (expected === 'forbidden') this.tally.add('403s predicted');
    if (about && actor.tenant !== about.tenant) this.tally.add('cross-tenant ids tried');
    return this.check(
      `${reply.label} by ${actor.name} answers ${expected}`,
      reply.outcome === expected,
      () =>
        `got ${reply.outcome} (${reply.status}${reply.code ? ` ${reply.code}` : ''}) ${reply.text.slice(0, 300)}` +
        (about ? ` for ${this.world.describe(about)}` : ''),
    );
  }
}
