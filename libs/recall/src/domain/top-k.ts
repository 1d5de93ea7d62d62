/**
 * The best `k` of a stream of (score, id) pairs, ordered by score then id, both descending (the
 * order of `ORDER BY score DESC, id DESC`): a min-heap whose root is the weakest pair kept.
 */
export class TopK {
  private readonly scores: number[] = [];
  private readonly ids: number[] = [];

  constructor(private readonly k: number) {}

  offer(score: number, id: number): void {
    if (this.k <= 0) return;
    if (this.scores.length < this.k) {
      this.scores.push(score);
      this.ids.push(id);
      this.up(this.scores.length - 1);
    } else if (this.weaker(this.scores[0], this.ids[0], score, id)) {
      this.scores[0] = score;
      this.ids[0] = id;
      this.down(0);
    }
  }

  /** How many pairs are kept (at most k). */
  get size(): number {
    return this.scores.length;
  }

  /** The weakest kept pair's score (the k-th best once `size` is k); -Infinity while empty. */
  get weakestScore(): number {
    return this.scores.length === 0 ? -Infinity : this.scores[0];
  }

  /** The pairs kept, best first. */
  sorted(): [score: number, id: number][] {
    return this.scores
      .map((score, i): [number, number] => [score, this.ids[i]])
      .sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  }

  /** (s1, i1) ranks below (s2, i2). */
  private weaker(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 < s2 || (s1 === s2 && i1 < i2);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.weaker(this.scores[i], this.ids[i], this.scores[parent], this.ids[parent])) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.scores.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let weakest = i;
      if (left < n && this.weaker(this.scores[left], this.ids[left], this.scores[weakest], this.ids[weakest]))
        weakest = left;
      if (
        right < n &&
        this.weaker(this.scores[right], this.ids[right], this.scores[weakest], this.ids[weakest])
      )
        weakest = right;
      if (weakest === i) return;
      this.swap(i, weakest);
      i = weakest;
    }
  }

  private swap(a: number, b: number): void {
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
    [this.ids[a], this.ids[b]] = [this.ids[b], this.ids[a]];
  }
}
