/** One memory a load generator created and was told about (an acknowledged store). */
export interface LedgerEntry {
  readonly id: number;
  readonly owner: string;
  /** The content of the last acknowledged write (the store, or an update since). */
  readonly acknowledged: string;
  /** Contents sent after the last acknowledgement without an answer: each may have been committed. */
  readonly unanswered: readonly string[];
  /** Every content this memory was ever sent (store and updates, answered or not). */
  readonly versionsSent: number;
  readonly updatesAcknowledged: number;
  readonly updatesSent: number;
}

/** What a memory found afterwards must look like, given what the ledger recorded. */
export interface LedgerVerdict {
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * What a client was told while faults were injected. An acknowledged write (a 2xx) must be there
 * afterwards; a write that got no answer, a 5xx or a timeout is unknown and may or may not be.
 * Every content sent must be unique, so a row can be traced to the request that wrote it.
 * Updates of one memory are expected one at a time (the caller serialises them).
 */
export class WriteLedger {
  private readonly entries = new Map<number, LedgerEntry>();
  private readonly unknownStores: { owner: string; content: string }[] = [];
  private readonly contents = new Set<string>();

  /** An acknowledged store (a retry of an unanswered idempotent store that was answered counts here). */
  stored(owner: string, id: number, content: string): void {
    this.sent(content);
    const known = this.entries.get(id);
    if (known) throw new Error(`memory ${id} acknowledged twice (for ${known.acknowledged} and ${content})`);
    this.entries.set(id, {
      id,
      owner,
      acknowledged: content,
      unanswered: [],
      versionsSent: 1,
      updatesAcknowledged: 0,
      updatesSent: 0,
    });
  }

  /** A store that got no definite answer: a row with this content may exist, at most one. */
  storeUnknown(owner: string, content: string): void {
    this.sent(content);
    this.unknownStores.push({ owner, content });
  }

  updated(id: number, content: string, acknowledged: boolean): void {
    this.sent(content);
    const entry = this.entry(id);
    this.entries.set(id, {
      ...entry,
      acknowledged: acknowledged ? content : entry.acknowledged,
      unanswered: acknowledged ? [] : [...entry.unanswered, content],
      versionsSent: entry.versionsSent + 1,
      updatesAcknowledged: entry.updatesAcknowledged + (acknowledged ? 1 : 0),
      updatesSent: entry.updatesSent + 1,
    });
  }

  get(id: number): LedgerEntry | undefined {
    return this.entries.get(id);
  }

  get acknowledged(): readonly LedgerEntry[] {
    return [...this.entries.values()];
  }

  get unknown(): readonly { owner: string; content: string }[] {
    return this.unknownStores;
  }

  /** True when this content was sent by the load (rows with other contents came from elsewhere). */
  wasSent(content: string): boolean {
    return this.contents.has(content);
  }

  /**
   * Judges the row found for an acknowledged memory: it must be live and hold the last acknowledged
   * content, or a content sent after it that got no answer (that write may have been committed).
   */
  judge(id: number, found: { content: string; deleted: boolean } | undefined): LedgerVerdict {
    const entry = this.entry(id);
    if (!found) return { ok: false, detail: `memory ${id} (${entry.acknowledged}) is gone` };
    if (found.deleted) return { ok: false, detail: `memory ${id} was deleted` };
    const allowed = [entry.acknowledged, ...entry.unanswered];
    return allowed.includes(found.content)
      ? { ok: true, detail: '' }
      : {
          ok: false,
          detail: `memory ${id} holds "${found.content}", expected "${entry.acknowledged}"${
            entry.unanswered.length > 0 ? ` or one of ${entry.unanswered.length} unanswered updates` : ''
          }`,
        };
  }

  private entry(id: number): LedgerEntry {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`memory ${id} was never acknowledged`);
    return entry;
  }

  private sent(content: string): void {
    if (this.contents.has(content)) throw new Error(`content sent twice: ${content}`);
    this.contents.add(content);
  }
}
