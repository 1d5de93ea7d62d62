type TypedArray = Int32Array | Uint16Array | Uint8Array | Float64Array;
type TypedArrayOf<T extends TypedArray> = { new (length: number): T };

/** A typed array that doubles when full: the index's columns and postings lists. */
export class Growable<T extends TypedArray> {
  data: T;
  length = 0;

  constructor(
    private readonly kind: TypedArrayOf<T>,
    capacity = 8,
  ) {
    this.data = new kind(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Makes room for `capacity` values without changing the length. */
  reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new this.kind(Math.max(capacity, this.data.length * 2));
    next.set(this.data.subarray(0, this.length) as never);
    this.data = next;
  }

  get bytes(): number {
    return this.data.byteLength;
  }
}
