import type { Socket } from 'node:net';
import type { Direction, FaultMode } from './fault-proxy';

/** What a link needs of the proxy that accepted it: the current mode, and where to count. */
export interface LinkOwner {
  mode(): FaultMode;
  forget(link: Link): void;
  counted(direction: Direction, bytes: number): void;
  countReset(): void;
}

type Item =
  { readonly data: Buffer; readonly due: number } | { readonly end: true } | { readonly destroy: true };

/** A lane this far behind stops reading its source (TCP back-pressure, so held bytes stay bounded). */
const HIGH_WATER = 1 << 20;

/** One client connection and its connection to the target. */
export class Link {
  private upstream: Socket | undefined;
  private readonly lanes: { readonly upstream: Lane; readonly downstream: Lane };
  /** Bytes forwarded since the current `reset` mode was set. */
  private sinceReset = 0;
  private resetMode: FaultMode | undefined;
  private done = false;

  constructor(
    private readonly owner: LinkOwner,
    private readonly client: Socket,
    private readonly dial: () => Socket,
  ) {
    client.on('error', () => undefined);
    this.lanes = {
      upstream: new Lane(this, 'upstream', client),
      downstream: new Lane(this, 'downstream', undefined),
    };
    this.modeChanged();
    client.resume();
  }

  get mode(): FaultMode {
    return this.owner.mode();
  }

  modeChanged(): void {
    if (this.done) return;
    if (this.mode.mode === 'reset' && this.resetMode !== this.mode) {
      this.resetMode = this.mode;
      this.sinceReset = 0;
    }
    // A blackhole answers nothing, not even the connect: the target is dialled once the link heals.
    if (!this.upstream && this.mode.mode !== 'blackhole') this.connectUpstream();
    this.lanes.upstream.pump();
    this.lanes.downstream.pump();
  }

  private connectUpstream(): void {
    const upstream = this.dial();
    this.upstream = upstream;
    upstream.on('error', () => undefined);
    this.lanes.upstream.setTarget(upstream);
    this.lanes.downstream.setSource(upstream);
    this.lanes.downstream.setTarget(this.client);
  }

  /** How many of `wanted` bytes may cross before a `reset` mode's budget runs out. */
  allowance(wanted: number): number {
    if (this.mode.mode !== 'reset') return wanted;
    return Math.min(wanted, Math.max(0, this.mode.afterBytes - this.sinceReset));
  }

  forwarded(direction: Direction, bytes: number): void {
    this.owner.counted(direction, bytes);
    if (this.mode.mode !== 'reset') return;
    this.sinceReset += bytes;
    if (this.sinceReset >= this.mode.afterBytes) this.reset();
  }

  reset(counted = true): void {
    if (this.done) return;
    if (counted) this.owner.countReset();
    this.done = true;
    this.client.resetAndDestroy();
    this.upstream?.resetAndDestroy();
    this.closed();
  }

  closed(): void {
    this.done = true;
    this.upstream?.destroy();
    this.owner.forget(this);
  }

  get finished(): boolean {
    return this.done;
  }
}

/** One direction of a link: a queue of chunks (and end/destroy markers) delivered in order. */
class Lane {
  private readonly queue: Item[] = [];
  private queued = 0;
  private target: Socket | undefined;
  private source: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastDue = 0;

  constructor(
    private readonly link: Link,
    private readonly direction: Direction,
    source: Socket | undefined,
  ) {
    if (source) this.setSource(source);
  }

  setSource(source: Socket): void {
    this.source = source;
    source.on('data', (data: Buffer) => this.enqueue({ data, due: this.dueTime() }));
    source.on('end', () => this.enqueue({ end: true }));
    source.on('error', () => this.enqueue({ destroy: true }));
  }

  setTarget(target: Socket): void {
    this.target = target;
    this.pump();
  }

  private dueTime(): number {
    const mode = this.link.mode;
    if (mode.mode !== 'latency') return 0;
    const jitter = mode.jitterMs ?? 0;
    const delay = Math.max(0, mode.latencyMs + (Math.random() * 2 - 1) * jitter);
    // Jitter never reorders: a chunk is not due before the one ahead of it.
    this.lastDue = Math.max(this.lastDue, Date.now() + delay);
    return this.lastDue;
  }

  private enqueue(item: Item): void {
    this.queue.push(item);
    if ('data' in item) {
      this.queued += item.data.length;
      if (this.queued > HIGH_WATER) this.source?.pause();
    }
    this.pump();
  }

  /** Delivers what the current mode lets through; called on every arrival, timer and mode change. */
  pump(): void {
    if (this.timer || !this.target || this.link.finished) return;
    const mode = this.link.mode;
    if (mode.mode === 'blackhole') return;
    if (mode.mode === 'half-open' && mode.stopped === this.direction) return;
    while (this.queue.length > 0 && !this.link.finished) {
      const head = this.queue[0]!;
      if (!('data' in head)) {
        this.queue.shift();
        if ('end' in head) this.target.end();
        else this.target.destroy();
        continue;
      }
      const wait = head.due - Date.now();
      if (wait > 0) return this.later(wait);
      const slice = this.sliceOf(head.data);
      // Only a spent reset budget allows nothing.
      if (slice === 0) return this.link.reset();
      this.send(head.data.subarray(0, slice));
      if (slice < head.data.length) this.queue[0] = { data: head.data.subarray(slice), due: head.due };
      else this.queue.shift();
      if (mode.mode === 'bandwidth') return this.later((slice / mode.bytesPerSecond) * 1000);
    }
  }

  /** Bytes of `data` to send now: all of it, a bandwidth slice (1/20 s worth) or what a reset budget allows. */
  private sliceOf(data: Buffer): number {
    const mode = this.link.mode;
    if (mode.mode === 'bandwidth') {
      return Math.min(data.length, Math.max(1, Math.floor(mode.bytesPerSecond / 20)));
    }
    return this.link.allowance(data.length);
  }

  private send(data: Buffer): void {
    this.queued -= data.length;
    if (this.queued <= HIGH_WATER) this.source?.resume();
    this.target!.write(data);
    this.link.forwarded(this.direction, data.length);
  }

  private later(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }
}
