import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChaosTally } from '@app/testing';
import { teamFixture } from '../support/e2e-env';
import {
  startApiProcess,
  startWorkerProcess,
  type ApiProcess,
  type WorkerProcess,
} from '../support/processes';
import { runArbitrary } from './isolation/actions';
import { Lane } from './isolation/lane';
import { laneActors } from './isolation/lane-setup';
import { REGRESSIONS } from './isolation/regressions';
import { FuzzTransport } from './isolation/transport';
import { World } from './isolation/world';

/** A larger run: CHAOS_SCALE=4 makes four times the runs (and calls). */
const SCALE = Math.max(1, Number(process.env.CHAOS_SCALE ?? '1') || 1);
/** Lanes run side by side, each over two tenants of its own. */
const LANES = 4;
/** Generated steps per fast-check run (after four opening stores). */
const STEPS_PER_RUN = 40;
const RUNS_PER_LANE = Math.ceil(22 * SCALE);
/** The floor: at least this many REST and MCP calls. */
const MIN_CALLS = 10_000 * SCALE;
/** Fixed, so a failure is reproducible: fast-check prints the seed and path of the counterexample. */
const SEED = 18_0001;
/**
 * Shrinking a failure replays many sequences; past this fast-check stops and reports the smallest
 * counterexample found so far. A passing run ends long before it.
 */
const TIME_LIMIT_MS = 240_000 * SCALE;

describe('isolation fuzz: generated REST and MCP sequences by three users in two tenants (built API and worker)', () => {
  const tally = new ChaosTally('Isolation fuzz');
  const world = new World();
  let api: ApiProcess;
  let worker: WorkerProcess;
  let io: FuzzTransport;
  let lanes: Lane[] = [];

  beforeAll(async () => {
    const team = teamFixture({
      MEMORY_ENCRYPTION_KEY: 'isolation fuzz passphrase 0123456789',
      EMBEDDING_MODEL: 'glove-sif-100d',
    });
    [api, worker] = await Promise.all([startApiProcess(team.env), startWorkerProcess(team.env)]);
    io = new FuzzTransport(api.url, tally);
    lanes = await Promise.all(
      Array.from(
        { length: LANES },
        async (_, i) => new Lane(i, world, io, tally, await laneActors(api.url, i)),
      ),
    );
  });

  afterAll(async () => {
    tally.report();
    // The server's own account of any failure, next to the failed checks.
    const errors = (api?.output() ?? '').split('\n').filter((l) => /"level":(50|60)/.test(l));
    if (tally.failed > 0 && errors.length > 0)
      process.stdout.write(`API errors:\n${errors.slice(-5).join('\n')}\n`);
    await io?.close();
    await Promise.all([api?.stop(), worker?.stop()]);
  });

  it.each(Object.entries(REGRESSIONS))('%s', async (_name, actions) => {
    await lanes[0].run(actions);
  });

  it('no answer shows a caller a memory, session or secret it may not see, and each answers as the rules say', async () => {
    const outcomes = await Promise.allSettled(
      lanes.map((lane, i) =>
        fc.assert(
          fc.asyncProperty(runArbitrary(lane.actors.length, Lane.targets, STEPS_PER_RUN), (actions) =>
            lane.run(actions),
          ),
          { seed: SEED + i, numRuns: RUNS_PER_LANE, interruptAfterTimeLimit: TIME_LIMIT_MS },
        ),
      ),
    );
    tally.add('fast-check runs', LANES * RUNS_PER_LANE);
    tally.add('memories made', world.byId.size);
    tally.add('sessions made', world.sessions.size);
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(failed, failed.join('\n\n')).toEqual([]);
    expect(tally.get('calls')).toBeGreaterThanOrEqual(MIN_CALLS);
    expect(tally.get('MCP calls')).toBeGreaterThan(0);
    tally.assertClean();
  });
});
