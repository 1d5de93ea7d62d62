/**
 * When each of alice's memories may have been visible to bob, from the requests alice sent: a
 * share opens a window when it is sent (it may commit any time after), and an unshare closes it
 * only once it is acknowledged (it may commit any time before). A read bob sent at t0 and got at t1
 * may show a memory only if one of its windows overlaps [t0, t1]; otherwise the answer matches no
 * moment's share state.
 */
export class ShareTimeline {
  /** Per grant (a memory id, or `tag:<name>`), its windows; an open one ends at Infinity. */
  private readonly windows = new Map<string, Array<{ from: number; to: number }>>();
  /** Which memories a tag grant covers. */
  private readonly tagged = new Map<number, string[]>();

  tag(memoryId: number, tag: string): void {
    this.tagged.set(memoryId, [...(this.tagged.get(memoryId) ?? []), tag]);
  }

  private open(grant: string): boolean {
    const list = this.windows.get(grant) ?? [];
    return list.length > 0 && list[list.length - 1].to === Infinity;
  }

  /** Call just before sending the share request. */
  shareSent(grant: string | number, at = performance.now()): void {
    const key = String(grant);
    if (this.open(key)) return;
    this.windows.set(key, [...(this.windows.get(key) ?? []), { from: at, to: Infinity }]);
  }

  /** Call once the unshare is acknowledged. */
  unshareAcknowledged(grant: string | number, at = performance.now()): void {
    const key = String(grant);
    const list = this.windows.get(key);
    if (list && this.open(key)) list[list.length - 1].to = at;
  }

  /** Was the memory ever shared at all (directly or by a tag)? */
  everShared(memoryId: number): boolean {
    return this.grantsOf(memoryId).some((g) => (this.windows.get(g)?.length ?? 0) > 0);
  }

  /** May bob have seen the memory during [t0, t1]? */
  visibleDuring(memoryId: number, t0: number, t1: number): boolean {
    return this.grantsOf(memoryId).some((g) =>
      (this.windows.get(g) ?? []).some((w) => w.from <= t1 && w.to >= t0),
    );
  }

  /**
   * Had a share of the memory been sent by t1? A change feed reports history in commit order, so a
   * page may still carry a share that a later page undoes with a tombstone.
   */
  sharedBy(memoryId: number, t1: number): boolean {
    return this.grantsOf(memoryId).some((g) => (this.windows.get(g) ?? []).some((w) => w.from <= t1));
  }

  private grantsOf(memoryId: number): string[] {
    return [String(memoryId), ...(this.tagged.get(memoryId) ?? []).map((t) => `tag:${t}`)];
  }
}
