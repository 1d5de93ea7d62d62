/**
 * Which callers' candidate sets reached the exact-scan threshold recently. Sizing a set costs
 * reading up to the threshold's worth of rows under row-level security (tens of milliseconds for
 * a team member), more than the index walk it chooses; a team stays large from one recall to the
 * next, so that answer is remembered for `ttlMs`. Small sets are not remembered: counting them is
 * cheap and their exact plan depends on the count being current. A stale entry only keeps a
 * caller on the index plan a little longer, which returns the same rows (visibility is checked
 * per row either way).
 */
export class LargeSetMemo {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  isLarge(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(key);
    return false;
  }

  remember(key: string, large: boolean): void {
    this.until.delete(key);
    if (!large || this.ttlMs <= 0) return;
    this.until.set(key, this.now() + this.ttlMs);
    // Insertion order is expiry order: the first key is the one that expires soonest.
    if (this.until.size > this.maxEntries) this.until.delete(this.until.keys().next().value as string);
  }
}
