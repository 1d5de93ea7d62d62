export interface MicroBatcherOptions<I, O> {
  /** Most items handed to `run` at once. */
  readonly maxBatchSize: number;
  /** How long the first queued item waits for company before a partial batch runs. */
  readonly maxWaitMs: number;
  /** Processes one batch; must return one output per input, in order. */
  readonly run: (items: readonly I[]) => Promise<O[]>;
}

interface PendingRequest<I, O> {
  readonly items: readonly I[];
  readonly results: O[];
  /** Index of the first item not yet taken into a batch. */
  nextToTake: number;
  /** Items whose outputs have not arrived yet. */
  outstanding: number;
  settled: boolean;
  readonly resolve: (values: O[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Segment<I, O> {
  readonly request: PendingRequest<I, O>;
  readonly start: number;
  readonly end: number;
}

/**
 * Merges concurrent `submit` calls into batches of at most `maxBatchSize` items. Model calls
 * cost far less per item in a batch, and several jobs embed at once in the worker.
 *
 * - A batch runs when enough items are queued, or `maxWaitMs` after the first one arrived.
 * - One batch runs at a time (the model already uses every core); items that arrive meanwhile
 *   run right after it without further waiting.
 * - A request larger than a batch is split across batches; its caller gets one ordered array.
 * - When a merged batch fails, each request in it is retried alone, so one caller's bad input
 *   fails only that caller.
 */
export class MicroBatcher<I, O> {
  private readonly queue: PendingRequest<I, O>[] = [];
  private queuedItems = 0;
  /** Cancels the pending wait for company, if any. */
  private timer: (() => void) | undefined;
  private running = false;

  constructor(private readonly options: MicroBatcherOptions<I, O>) {
    if (!Number.isInteger(options.maxBatchSize) || options.maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${options.maxBatchSize}`);
    }
  }

  submit(items: readonly I[]): Promise<O[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<O[]>((resolve, reject) => {
      this.queue.push({
        items,
        results: new Array<O>(items.length),
        nextToTake: 0,
        outstanding: items.length,
        settled: false,
        resolve,
        reject,
      });
      this.queuedItems += items.length;
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running || this.queuedItems === 0) return; // a running drain picks new items up
    if (this.queuedItems >= this.options.maxBatchSize) {
      this.clearTimer();
      void this.drain();
    } else if (this.timer === undefined) {
      const fire = () => {
        this.timer = undefined;
        void this.drain();
      };
      // No wait: run once this turn's callbacks are done, so what they submit still joins the
      // batch (a 0 ms timeout would wait 1 ms, a recall's query embedding twice over).
      if (this.options.maxWaitMs === 0) {
        const immediate = setImmediate(fire);
        this.timer = () => clearImmediate(immediate);
      } else {
        const timeout = setTimeout(fire, this.options.maxWaitMs);
        this.timer = () => clearTimeout(timeout);
      }
    }
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queuedItems > 0) await this.runBatch(this.takeBatch());
    } finally {
      this.running = false;
    }
  }

  private takeBatch(): Segment<I, O>[] {
    const segments: Segment<I, O>[] = [];
    let room = this.options.maxBatchSize;
    while (room > 0 && this.queue.length > 0) {
      const request = this.queue[0];
      const start = request.nextToTake;
      const end = Math.min(request.items.length, start + room);
      segments.push({ request, start, end });
      request.nextToTake = end;
      room -= end - start;
      this.queuedItems -= end - start;
      if (end === request.items.length) this.queue.shift();
    }
    return segments;
  }

  private async runBatch(segments: Segment<I, O>[]): Promise<void> {
    const live = segments.filter((segment) => !segment.request.settled);
    if (live.length === 0) return;
    try {
      const outputs = await this.runChecked(live.flatMap(itemsOf));
      let offset = 0;
      for (const segment of live) {
        deliver(segment, outputs.slice(offset, offset + segment.end - segment.start));
        offset += segment.end - segment.start;
      }
    } catch (error) {
      if (live.length === 1) {
        this.fail(live[0].request, error);
        return;
      }
      for (const segment of live) {
        if (segment.request.settled) continue;
        try {
          deliver(segment, await this.runChecked(itemsOf(segment)));
        } catch (alone) {
          this.fail(segment.request, alone);
        }
      }
    }
  }

  private async runChecked(items: readonly I[]): Promise<O[]> {
    const outputs = await this.options.run(items);
    if (outputs.length !== items.length) {
      throw new Error(`batch function returned ${outputs.length} outputs for ${items.length} inputs`);
    }
    return outputs;
  }

  private fail(request: PendingRequest<I, O>, error: unknown): void {
    if (request.settled) return;
    request.settled = true;
    // Drop the part of a split request that has not run yet.
    const index = this.queue.indexOf(request);
    if (index >= 0) {
      this.queue.splice(index, 1);
      this.queuedItems -= request.items.length - request.nextToTake;
    }
    request.reject(error);
  }

  private clearTimer(): void {
    this.timer?.();
    this.timer = undefined;
  }
}

function itemsOf<I, O>(segment: Segment<I, O>): readonly I[] {
  return segment.request.items.slice(segment.start, segment.end);
}

function deliver<I, O>(segment: Segment<I, O>, outputs: readonly O[]): void {
  const { request } = segment;
  if (request.settled) return;
  outputs.forEach((output, i) => {
    request.results[segment.start + i] = output;
  });
  request.outstanding -= outputs.length;
  if (request.outstanding === 0) {
    request.settled = true;
    request.resolve(request.results);
  }
}
