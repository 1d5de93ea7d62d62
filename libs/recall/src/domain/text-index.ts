import { Growable } from './growable';
import type { RecallFilter } from './recall-filter';
import { TopK } from './top-k';
import { THREAD_TAG_PREFIXES } from './thread-context';

/** One memory as the feed delivers it (migration 1763700000028, `recall_text_index_doc`). */
export interface IndexedDoc {
  readonly id: number;
  /** Position of the row's last change: a row is applied only over an older one. */
  readonly seq: number;
  /** Not soft-deleted; a row that is not live leaves the index. */
  readonly live: boolean;
  readonly ownerId: string;
  readonly team: boolean;
  readonly tags: readonly string[];
  readonly category: string;
  readonly project: string | null;
  readonly createdMs: number;
  readonly expiresMs: number | null;
  /** `search_vector`'s lexemes and their weighted frequencies in tenths (A 10, B 4, C 2, D 1). */
  readonly lexemes: readonly string[];
  readonly tfs: readonly number[];
  /** Absent in a feed older than migration 1763700000039: recall then reads ranking facts in Postgres. */
  readonly importance?: number;
}

/** Whom the caller's recall may show: the read rule's inputs, fresh for each recall. */
export interface TextAudience {
  readonly userId: string;
  readonly admin: boolean;
  /** Memories shared with the caller directly. */
  readonly shared: ReadonlySet<number>;
  /** Tag rules naming the caller: owner → tags. */
  readonly tagRules: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface TextIndexQuery {
  readonly lexemes: readonly string[];
  readonly k: number;
  readonly k1: number;
  readonly b: number;
  readonly filter: RecallFilter;
  readonly audience: TextAudience;
  readonly nowMs: number;
}

/** What the pre-filter needs: the recall's filters, the read rule's inputs and the time. */
export type ReadQuery = Pick<TextIndexQuery, 'filter' | 'audience' | 'nowMs'>;

/** What recall ranks a candidate by, as `RecallCandidateRepository` reads it. */
export interface IndexedFacts {
  readonly importance: number;
  readonly project: string | null;
  /** ISO text with microseconds, as Postgres formats `created_at` (`isoTimestamp`). */
  readonly createdAt: string;
}

/** A hit's previous and next live memory of its thread (same owner, same thread tag), or null at an end. */
export interface IndexedNeighbours {
  readonly memoryId: number;
  readonly previousId: number | null;
  readonly nextId: number | null;
}

export interface IndexedHit {
  readonly memoryId: number;
  readonly score: number;
  /** Share of the query's IDF (`coverageOf`) held by the terms this memory holds. */
  readonly coverage: number;
}

/** How a search scores: `auto` picks per query; the others force one way (tests compare them). */
export interface TextIndexOptions {
  readonly accumulate?: 'auto' | 'always' | 'never';
}

/** A query's rarest list leads (document at a time) when the lists hold 256 times its postings. */
const LEADING_TERM_SPREAD = 256;
/** Slots per block of the term-at-a-time sums (2^10). */
const SUM_BLOCK_BITS = 10;

/** Query terms scored at most, the rarest first (as `recall_text_search`). */
export const MAX_QUERY_TERMS = 32;
/** How long a removed memory's position is remembered against an older snapshot's copy of it. */
const REMOVAL_MEMORY_MS = 120_000;

/**
 * One tenant's exact BM25 index, in typed arrays: per term a postings list of (document slot,
 * weighted tf), per slot the facts the filters and the read rule need. It scores exactly as
 * `recall_text_search` (migration 1763700000017) does — the same tenant-wide statistics over live
 * memories, the same 32 rarest terms, the same formula — so the SQL function is its reference.
 *
 * A changed memory takes a new slot; the old slot goes dead (its postings are skipped, its counts
 * leave the statistics at once) and `compact` drops dead slots once they outnumber live ones.
 * Changes carry their position: a copy older than what the index holds is ignored, so deltas read
 * in overlapping snapshots can be applied in any order.
 */
export class TenantTextIndex {
  constructor(private readonly options: TextIndexOptions = {}) {}

  private readonly slotOf = new Map<number, number>();
  private readonly removed = new Map<number, { seq: number; at: number }>();
  private readonly strings = new Map<string, number>();
  private readonly terms = new Map<string, number>();
  private readonly termNames: string[] = [];
  private readonly df = new Growable(Int32Array);
  /** Per term: its documents by slot (ascending) and weighted tfs, and bounds of both over them. */
  private readonly postings: Postings[] = [];
  // Per slot.
  private readonly ids = new Growable(Float64Array);
  private readonly seqs = new Growable(Float64Array);
  private readonly live = new Growable(Uint8Array);
  private readonly lengths = new Growable(Int32Array);
  private readonly owners = new Growable(Int32Array);
  private readonly team = new Growable(Uint8Array);
  private readonly categories = new Growable(Int32Array);
  private readonly projects = new Growable(Int32Array);
  private readonly created = new Growable(Float64Array);
  private readonly expires = new Growable(Float64Array);
  private readonly importance = new Growable(Float64Array);
  private readonly tagStart = new Growable(Int32Array);
  private readonly termStart = new Growable(Int32Array);
  private readonly tagPool = new Growable(Int32Array);
  private readonly termPool = new Growable(Int32Array);
  private readonly tfPool = new Growable(Uint16Array);

  private liveDocs = 0;
  private totalLength = 0;
  /** Live memories per owner (interned id), and live team memories: bounds on a caller's set. */
  private readonly ownerLive = new Map<number, number>();
  private teamLive = 0;

  get documents(): number {
    return this.liveDocs;
  }

  get slots(): number {
    return this.ids.length;
  }

  /** Applies one row of the feed; older than what the index holds: ignored. */
  apply(doc: IndexedDoc, nowMs = Date.now()): void {
    const slot = this.slotOf.get(doc.id);
    if (slot !== undefined && this.seqs.data[slot] >= doc.seq) return;
    const gone = this.removed.get(doc.id);
    if (gone !== undefined && gone.seq >= doc.seq) return;
    if (slot !== undefined) this.kill(slot);
    if (!doc.live) {
      // Kept as a dead slot until compaction: its position still wins over older copies.
      if (slot !== undefined) this.seqs.data[slot] = doc.seq;
      else this.removed.set(doc.id, { seq: doc.seq, at: nowMs });
      return;
    }
    this.append(doc);
  }

  /** A memory removed outright (purged): `seq` is the position of its removal. */
  remove(id: number, seq: number, nowMs = Date.now()): void {
    const slot = this.slotOf.get(id);
    if (slot !== undefined && this.seqs.data[slot] > seq) return;
    if (slot !== undefined) {
      this.kill(slot);
      this.slotOf.delete(id);
    }
    this.removed.set(id, { seq, at: nowMs });
  }

  /** Forgets removal positions no snapshot still in flight can be older than. */
  forgetRemovals(nowMs = Date.now()): void {
    for (const [id, gone] of this.removed) if (nowMs - gone.at > REMOVAL_MEMORY_MS) this.removed.delete(id);
  }

  /** True when dead slots outnumber live ones enough to be worth a rebuild. */
  get wantsCompaction(): boolean {
    const dead = this.ids.length - this.liveDocs;
    return dead > 1024 && dead > this.liveDocs;
  }

  /** A new index holding only the live documents (dead slots' positions kept as removals). */
  compact(nowMs = Date.now()): TenantTextIndex {
    const next = new TenantTextIndex(this.options);
    for (const [id, gone] of this.removed) next.removed.set(id, gone);
    for (let slot = 0; slot < this.ids.length; slot += 1) {
      const id = this.ids.data[slot];
      if (this.live.data[slot] === 1) next.append(this.docAt(slot));
      else if (this.slotOf.get(id) === slot) next.removed.set(id, { seq: this.seqs.data[slot], at: nowMs });
    }
    return next;
  }

  /**
   * Approximate heap use, recounted when the slots grew or shrank by a sixteenth since the last
   * count: recounting walks every term, which a recall applying a few changes should not pay.
   */
  get bytes(): number {
    if (this.counted === null || Math.abs(this.ids.length - this.counted.slots) * 16 > this.counted.slots) {
      this.counted = { slots: this.ids.length, bytes: this.countBytes() };
    }
    return this.counted.bytes;
  }

  private counted: { slots: number; bytes: number } | null = null;

  private countBytes(): number {
    const columns = [
      this.ids,
      this.seqs,
      this.live,
      this.lengths,
      this.owners,
      this.team,
      this.categories,
      this.projects,
      this.created,
      this.expires,
      this.importance,
      this.tagStart,
      this.termStart,
      this.tagPool,
      this.termPool,
      this.tfPool,
      this.df,
    ];
    let bytes = columns.reduce((sum, c) => sum + c.bytes, 0);
    // The term-at-a-time sums, per slot and per block, counted whether a search made them yet or not.
    bytes += this.ids.length * 8 + (this.ids.length >>> SUM_BLOCK_BITS) * 8;
    for (const p of this.postings) bytes += p.docs.bytes + p.tfs.bytes + 64;
    bytes += this.slotOf.size * 40 + this.removed.size * 80;
    for (const thread of this.threads.values()) bytes += 64 + thread.slots.length * 8;
    for (const name of this.termNames) bytes += 80 + name.length * 2;
    return bytes;
  }

  /**
   * The caller's top `k` by BM25 score, then id (both descending), among what the pre-filter lets
   * through. Exact either way: term at a time when the query's lists are long (`termAtATime`),
   * else document at a time with MaxScore (`documentAtATime`): each term has an upper bound on what it can
   * add to any document (its largest weighted tf at its shortest document); the terms whose bounds
   * together cannot lift a document past the k-th score so far are not walked, only looked up in
   * the documents the other terms bring, and only while those can still reach the top k. A
   * document's score is summed over its terms rarest first, as `recall_text_search` sums it.
   */
  search(query: TextIndexQuery): IndexedHit[] {
    const terms = this.queryTerms(query.lexemes);
    if (terms.length === 0 || !(this.liveDocs > 0 && this.totalLength > 0)) return [];
    const accepts = this.filterFor(query);
    if (accepts === null || query.k <= 0) return [];
    const lists = terms.map((term) => this.postings[term]);
    const n = this.liveDocs;
    const idfs = terms.map((term) => {
      const df = this.df.data[term];
      return Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
    const scoring: Scoring = {
      k: query.k,
      k1: query.k1,
      b: query.b,
      avgdl: this.totalLength / this.liveDocs,
      lengths: this.lengths.data,
      lists,
      idfs,
      accepts,
    };
    const top = this.accumulates(lists, query.k) ? this.termAtATime(scoring) : this.documentAtATime(scoring);
    const coverage = this.coverageOf(query.lexemes);
    return top.sorted().map(([score, memoryId]) => ({ memoryId, score, coverage: coverage(memoryId) }));
  }

  /**
   * How much of the query a memory holds: the IDF of the query's distinct terms it holds over the IDF
   * of all of them — a term no live memory holds counts as the rarest (df 0), so a query about
   * something the store lacks is covered thinly. Read from the hit's own term list (a few dozen
   * terms), only for the hits returned.
   */
  private coverageOf(lexemes: readonly string[]): (memoryId: number) => number {
    const n = this.liveDocs;
    const weights = new Map<number, number>();
    let total = 0;
    for (const lexeme of new Set(lexemes)) {
      if (lexeme === '') continue;
      const term = this.terms.get(lexeme);
      const df = term === undefined ? 0 : this.df.data[term];
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      total += idf;
      if (term !== undefined && df > 0) weights.set(term, idf);
    }
    return (memoryId) => {
      const slot = this.slotOf.get(memoryId);
      if (slot === undefined || total <= 0) return 0;
      const end = slot + 1 < this.termStart.length ? this.termStart.data[slot + 1] : this.termPool.length;
      let held = 0;
      for (let i = this.termStart.data[slot]; i < end; i += 1)
        held += weights.get(this.termPool.data[i]) ?? 0;
      return held / total;
    };
  }

  /**
   * Whether a query over these lists is scored term at a time, as most are: each list walked once
   * costs less than merging them document by document, since MaxScore skips little unless one
   * term leads. Document at a time is kept for that case: a list rare enough (1/256 of the
   * postings or less) yet long enough to fill the top k alone, so that the common terms are only
   * looked up in the documents it brings.
   */
  private accumulates(lists: readonly Postings[], k: number): boolean {
    const mode = this.options.accumulate ?? 'auto';
    if (mode !== 'auto') return mode === 'always';
    let postings = 0;
    let shortest = Infinity;
    for (const list of lists) {
      postings += list.docs.length;
      shortest = Math.min(shortest, list.docs.length);
    }
    return !(shortest >= k && shortest * LEADING_TERM_SPREAD < postings);
  }

  /**
   * Every list walked once, rarest term first, adding each posting's score into a per-slot sum —
   * the same additions in the same order as a document's sum document at a time, so the same
   * scores to the last bit. Each block of slots keeps the largest sum in it (sums only grow), so
   * the blocks are then read back best first and reading stops at the first block whose largest
   * sum cannot reach the k-th score: the top k come from a few blocks, the rest are only zeroed.
   */
  private termAtATime(scoring: Scoring): TopK {
    const { k, k1, b, avgdl, lengths, lists, idfs, accepts } = scoring;
    const { sums, blockMax } = this.scratch();
    let first = 0x7fffffff;
    let last = -1;
    for (let t = 0; t < lists.length; t += 1) {
      const docs = lists[t].docs.data;
      const tfs = lists[t].tfs.data;
      const size = lists[t].docs.length;
      if (size === 0) continue;
      const idf = idfs[t];
      first = Math.min(first, docs[0]);
      last = Math.max(last, docs[size - 1]);
      for (let i = 0; i < size; i += 1) {
        const slot = docs[i];
        const tf = tfs[i] / 10;
        const sum = sums[slot] + (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[slot]) / avgdl));
        sums[slot] = sum;
        const block = slot >>> SUM_BLOCK_BITS;
        if (sum > blockMax[block]) blockMax[block] = sum;
      }
    }
    const top = new TopK(k);
    if (last < 0) return top;
    const blocks: number[] = [];
    for (let block = first >>> SUM_BLOCK_BITS; block <= last >>> SUM_BLOCK_BITS; block += 1)
      if (blockMax[block] > 0) blocks.push(block);
    blocks.sort((x, y) => blockMax[y] - blockMax[x] || x - y);
    let kth = -Infinity;
    for (const block of blocks) {
      const from = block << SUM_BLOCK_BITS;
      const to = Math.min(from + (1 << SUM_BLOCK_BITS), sums.length);
      if (blockMax[block] < kth) {
        sums.fill(0, from, to);
      } else {
        for (let slot = from; slot < to; slot += 1) {
          const score = sums[slot];
          sums[slot] = 0;
          if (score >= kth && score > 0 && accepts(slot)) {
            top.offer(score, this.ids.data[slot]);
            if (top.size === k) kth = top.weakestScore;
          }
        }
      }
      blockMax[block] = 0;
    }
    return top;
  }

  /** A zeroed sum per slot and per block of slots, kept between searches (each zeroes what it used). */
  private scratch(): { sums: Float64Array; blockMax: Float64Array } {
    if (this.sums === null || this.sums.sums.length < this.ids.length) {
      const slots = Math.max(this.ids.length, (this.sums?.sums.length ?? 0) * 2, 1 << SUM_BLOCK_BITS);
      const size = Math.ceil(slots / (1 << SUM_BLOCK_BITS)) << SUM_BLOCK_BITS;
      this.sums = { sums: new Float64Array(size), blockMax: new Float64Array(size >>> SUM_BLOCK_BITS) };
    }
    return this.sums;
  }

  private sums: { sums: Float64Array; blockMax: Float64Array } | null = null;

  private documentAtATime(scoring: Scoring): TopK {
    const { k, k1, b, avgdl, lengths, lists, idfs, accepts } = scoring;
    const count = lists.length;
    const termScore = (t: number, tfTenths: number, slot: number) => {
      const tf = tfTenths / 10;
      return (idfs[t] * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[slot]) / avgdl));
    };
    const bounds = lists.map((list, t) => {
      const tf = list.tfMax / 10;
      return (idfs[t] * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * list.lengthMin) / avgdl));
    });
    // Terms by bound, weakest first; `below[i]`: what the i weakest can add together.
    const order = Array.from({ length: count }, (_, t) => t).sort((x, y) => bounds[x] - bounds[y] || x - y);
    const below = [0];
    for (const t of order) below.push(below[below.length - 1] + bounds[t]);
    // Float sums of bounds and of scores may differ in the last bits: compare with a margin.
    const cannotReach = (bound: number, kth: number) => bound * (1 + 1e-9) < kth;
    const cursors = new Int32Array(count);
    const found = new Float64Array(count);
    const top = new TopK(k);
    let kth = -Infinity;
    // order[0 .. walked) are looked up only; order[walked ..] are walked.
    let lookedUp = 0;
    for (;;) {
      let slot = 0x7fffffff;
      for (let i = lookedUp; i < count; i += 1) {
        const t = order[i];
        if (cursors[t] < lists[t].docs.length) slot = Math.min(slot, lists[t].docs.data[cursors[t]]);
      }
      if (slot === 0x7fffffff) break;
      found.fill(Number.NaN);
      let partial = 0;
      for (let i = lookedUp; i < count; i += 1) {
        const t = order[i];
        const at = cursors[t];
        if (at < lists[t].docs.length && lists[t].docs.data[at] === slot) {
          found[t] = termScore(t, lists[t].tfs.data[at], slot);
          partial += found[t];
          cursors[t] = at + 1;
        }
      }
      if (cannotReach(partial + below[lookedUp], kth) || !accepts(slot)) continue;
      let reachable = true;
      for (let i = lookedUp - 1; i >= 0; i -= 1) {
        if (cannotReach(partial + below[i + 1], kth)) {
          reachable = false;
          break;
        }
        const t = order[i];
        const at = seek(lists[t].docs, cursors[t], slot);
        cursors[t] = at;
        if (at < lists[t].docs.length && lists[t].docs.data[at] === slot) {
          found[t] = termScore(t, lists[t].tfs.data[at], slot);
          partial += found[t];
        }
      }
      if (!reachable) continue;
      let score = 0;
      for (let t = 0; t < count; t += 1) if (!Number.isNaN(found[t])) score += found[t];
      top.offer(score, this.ids.data[slot]);
      if (top.size === k) {
        kth = top.weakestScore;
        while (lookedUp < count && cannotReach(below[lookedUp + 1], kth)) lookedUp += 1;
      }
    }
    return top;
  }

  /**
   * Which of `lexemes` some live memory the caller may read holds (the recall's filters aside): a
   * term's postings are walked until one readable memory is met. What `present_lexemes` answers in
   * Postgres.
   */
  present(lexemes: readonly string[], read: Pick<ReadQuery, 'audience' | 'nowMs'>): Set<string> {
    const found = new Set<string>();
    const readable = this.filterFor({ filter: {}, audience: read.audience, nowMs: read.nowMs });
    if (readable === null) return found;
    for (const lexeme of lexemes) {
      const term = this.terms.get(lexeme);
      if (term === undefined || this.df.data[term] === 0) continue;
      const docs = this.postings[term].docs;
      for (let i = 0; i < docs.length; i += 1)
        if (readable(docs.data[i])) {
          found.add(lexeme);
          break;
        }
    }
    return found;
  }

  /**
   * The live memories the pre-filter lets through (the recall's filters and the read rule), by id:
   * what the vector leg may propose. Null when a filter names something no memory has.
   */
  accepting(query: ReadQuery): ((id: number) => boolean) | null {
    const accepts = this.filterFor(query);
    if (accepts === null) return null;
    return (id) => {
      const slot = this.slotOf.get(id);
      return slot !== undefined && accepts(slot);
    };
  }

  /** Calls `visit` with the id of every live memory the pre-filter lets through, in slot order. */
  forEachAccepted(query: ReadQuery, visit: (id: number) => void): void {
    const accepts = this.filterFor(query);
    if (accepts === null) return;
    for (let slot = 0; slot < this.ids.length; slot += 1) if (accepts(slot)) visit(this.ids.data[slot]);
  }

  /**
   * At least as many live memories as the caller may read (before filters): their own, the team's,
   * direct shares, and every memory of an owner whose tag rule names them. Cheap: counts only.
   */
  readableBound(audience: TextAudience): number {
    if (audience.admin) return this.liveDocs;
    const own = this.strings.get(audience.userId);
    let bound =
      this.teamLive + audience.shared.size + (own === undefined ? 0 : (this.ownerLive.get(own) ?? 0));
    for (const owner of audience.tagRules.keys()) {
      const ownerId = this.strings.get(owner);
      if (ownerId !== undefined && ownerId !== own) bound += this.ownerLive.get(ownerId) ?? 0;
    }
    return Math.min(bound, this.liveDocs);
  }

  /**
   * What recall ranks by, read here instead of in Postgres (`RecallCandidateRepository.describe`
   * without supersedes heads, which it answers the same): the ranking facts of each id the caller
   * may read (live, not expired, the read rule; recall's filters do not apply), and with `threads`
   * each such id's previous and next memory of its thread the caller may read — the owner's
   * memories carrying its thread tag, by creation time then id; with `implicitWindowMs` > 0, for an
   * id without a thread tag the owner's nearest untagged memory written within that window and
   * not at the same instant (`threadNeighboursFromSql`) — with their facts. Null when the index cannot answer as Postgres
   * would: a memory loaded without its importance, or a hit carrying two thread tags (Postgres picks
   * one by its collation).
   */
  describe(
    ids: readonly number[],
    read: Pick<ReadQuery, 'audience' | 'nowMs'>,
    threads: boolean,
    implicitWindowMs = 0,
  ): { facts: Map<number, IndexedFacts>; threads: IndexedNeighbours[] } | null {
    const readable = this.filterFor({ filter: {}, audience: read.audience, nowMs: read.nowMs });
    if (readable === null) return { facts: new Map(), threads: [] };
    const facts = new Map<number, IndexedFacts>();
    const add = (slot: number): boolean => {
      if (facts.has(this.ids.data[slot])) return true;
      if (Number.isNaN(this.importance.data[slot])) return false;
      facts.set(this.ids.data[slot], {
        importance: this.importance.data[slot],
        project: this.projects.data[slot] === -3 ? null : this.stringAt(this.projects.data[slot]),
        createdAt: isoMicros(this.created.data[slot]),
      });
      return true;
    };
    const hits: number[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || !readable(slot) || hits.includes(slot)) continue;
      if (!add(slot)) return null;
      hits.push(slot);
    }
    const neighbours: IndexedNeighbours[] = [];
    if (!threads) return { facts, threads: neighbours };
    const lenders: number[] = [];
    for (const slot of hits) {
      const tags = this.tagPool.data
        .subarray(this.tagStart.data[slot], this.tagStart.data[slot + 1])
        .filter((t) => isThreadTag(this.stringAt(t)));
      const window = Math.round(implicitWindowMs);
      if (tags.length === 0 && window <= 0) continue;
      if (tags.length > 1) return null;
      const implicit = tags.length === 0;
      const thread = this.sortedThread(this.owners.data[slot], implicit ? '' : this.stringAt(tags[0]));
      // An implicit thread's neighbour was written within the window (as Postgres compares: µs),
      // and not at the hit's own instant (one request's batch of separate facts).
      const apart = (other: number) =>
        Math.abs(micros(this.created.data[other]) - micros(this.created.data[slot]));
      const inWindow = (other: number) => !implicit || apart(other) <= window * 1000;
      // Binary search: the first place in the thread where `before` is false.
      const placeWhere = (before: (other: number) => boolean): number => {
        let low = 0;
        let high = thread.length;
        while (low < high) {
          const mid = (low + high) >>> 1;
          if (before(thread[mid])) low = mid + 1;
          else high = mid;
        }
        return low;
      };
      const at = placeWhere((other) => this.threadOrder(other, slot) < 0);
      // An implicit thread's walk starts outside the hit's own instant (a batch may be large).
      const instant = micros(this.created.data[slot]);
      const [first, last] = implicit
        ? [
            placeWhere((other) => micros(this.created.data[other]) < instant) - 1,
            placeWhere((other) => micros(this.created.data[other]) <= instant),
          ]
        : [at - 1, at + 1];
      const near = (step: 1 | -1): number | null => {
        for (let i = step < 0 ? first : last; i >= 0 && i < thread.length; i += step) {
          const other = thread[i];
          if (!inWindow(other)) return null;
          // The hit's own earlier copies (dead slots) sort beside it.
          if (this.ids.data[other] === this.ids.data[slot]) continue;
          if (readable(other)) return other;
        }
        return null;
      };
      const previous = near(-1);
      const next = near(1);
      if (previous === null && next === null) continue;
      neighbours.push({
        memoryId: this.ids.data[slot],
        previousId: previous === null ? null : this.ids.data[previous],
        nextId: next === null ? null : this.ids.data[next],
      });
      for (const lender of [previous, next]) if (lender !== null) lenders.push(lender);
    }
    for (const slot of lenders) if (!add(slot)) return null;
    return { facts, threads: neighbours };
  }

  /**
   * Per owner and thread tag: the slots carrying it, live or dead; sorted on demand. Tag '' holds
   * the owner's slots without a thread tag (implicit threads).
   */
  private readonly threads = new Map<string, { slots: number[]; sorted: boolean }>();

  private addToThread(owner: number, tag: string, slot: number): void {
    const key = `${owner}\u0000${tag}`;
    const thread = this.threads.get(key);
    if (thread === undefined) this.threads.set(key, { slots: [slot], sorted: true });
    else {
      // A memory written after the thread's last one (the usual case) keeps it sorted.
      const last = thread.slots[thread.slots.length - 1];
      if (thread.sorted && this.threadOrder(last, slot) > 0) thread.sorted = false;
      thread.slots.push(slot);
    }
  }

  /** The thread's slots by creation time (to the microsecond, as Postgres compares), then id. */
  private sortedThread(owner: number, tag: string): readonly number[] {
    const thread = this.threads.get(`${owner}\u0000${tag}`);
    if (thread === undefined) return [];
    if (!thread.sorted) {
      thread.slots.sort((a, b) => this.threadOrder(a, b));
      thread.sorted = true;
    }
    return thread.slots;
  }

  private threadOrder(a: number, b: number): number {
    return micros(this.created.data[a]) - micros(this.created.data[b]) || this.ids.data[a] - this.ids.data[b];
  }

  /**
   * Distinct query lexemes some live memory holds, rarest first, 32 at most. Lexemes come in the
   * database's collation order, which breaks ties between equally rare terms as SQL does.
   */
  private queryTerms(lexemes: readonly string[]): number[] {
    const found: number[] = [];
    for (const lexeme of lexemes) {
      const term = lexeme === '' ? undefined : this.terms.get(lexeme);
      if (term !== undefined && this.df.data[term] > 0 && !found.includes(term)) found.push(term);
    }
    // Array.prototype.sort is stable: equal df keep the collation order.
    return found.sort((a, b) => this.df.data[a] - this.df.data[b]).slice(0, MAX_QUERY_TERMS);
  }

  /** The pre-filter of one search over slots, or null when a filter names something no memory has. */
  private filterFor(query: ReadQuery): ((slot: number) => boolean) | null {
    const { filter, audience, nowMs } = query;
    const category = filter.category === undefined ? -1 : this.strings.get(filter.category);
    const project = filter.project === undefined ? -1 : this.strings.get(filter.project);
    if (category === undefined || project === undefined) return null;
    const wantedTags = new Set((filter.tags ?? []).flatMap((t) => this.strings.get(t) ?? []));
    if (filter.tags !== undefined && filter.tags.length > 0 && wantedTags.size === 0) return null;
    const since = filter.since?.getTime() ?? -Infinity;
    const before = filter.before?.getTime() ?? Infinity;
    const user = this.strings.get(audience.userId) ?? -2;
    const rules = new Map<number, Set<number>>();
    for (const [owner, tags] of audience.tagRules) {
      const ownerId = this.strings.get(owner);
      if (ownerId !== undefined)
        rules.set(ownerId, new Set([...tags].flatMap((t) => this.strings.get(t) ?? [])));
    }
    const tagsOf = (slot: number) =>
      this.tagPool.data.subarray(this.tagStart.data[slot], this.tagStart.data[slot + 1]);
    const readable = (slot: number): boolean => {
      if (audience.admin || this.owners.data[slot] === user || this.team.data[slot] === 1) return true;
      if (audience.shared.has(this.ids.data[slot])) return true;
      const ruleTags = rules.get(this.owners.data[slot]);
      return ruleTags !== undefined && tagsOf(slot).some((t) => ruleTags.has(t));
    };
    return (slot) =>
      this.live.data[slot] === 1 &&
      this.expires.data[slot] > nowMs &&
      (category === -1 || this.categories.data[slot] === category) &&
      (project === -1 || this.projects.data[slot] === project) &&
      this.created.data[slot] >= since &&
      this.created.data[slot] < before &&
      (wantedTags.size === 0 || tagsOf(slot).some((t) => wantedTags.has(t))) &&
      readable(slot);
  }

  private append(doc: IndexedDoc): void {
    const slot = this.ids.length;
    const length = doc.tfs.reduce((sum, tf) => sum + tf, 0);
    this.tagStart.push(this.tagPool.length);
    for (const tag of doc.tags) this.tagPool.push(this.intern(tag));
    this.termStart.push(this.termPool.length);
    doc.lexemes.forEach((lexeme, i) => {
      const term = this.termOf(lexeme);
      const tf = doc.tfs[i];
      const postings = this.postings[term];
      this.termPool.push(term);
      this.tfPool.push(tf);
      postings.docs.push(slot);
      postings.tfs.push(tf);
      // Bounds only grow (a dead slot's values stay in them): still bounds, maybe looser.
      postings.tfMax = Math.max(postings.tfMax, tf);
      postings.lengthMin = Math.min(postings.lengthMin, length);
      this.df.data[term] += 1;
    });
    this.ids.push(doc.id);
    this.seqs.push(doc.seq);
    this.live.push(1);
    this.lengths.push(length);
    this.owners.push(this.intern(doc.ownerId));
    this.team.push(doc.team ? 1 : 0);
    this.categories.push(this.intern(doc.category));
    this.projects.push(doc.project === null ? -3 : this.intern(doc.project));
    this.created.push(doc.createdMs);
    this.expires.push(doc.expiresMs ?? Infinity);
    this.importance.push(doc.importance ?? Number.NaN);
    const threadTags = doc.tags.filter(isThreadTag);
    for (const tag of threadTags) this.addToThread(this.owners.data[slot], tag, slot);
    if (threadTags.length === 0) this.addToThread(this.owners.data[slot], '', slot);
    this.slotOf.set(doc.id, slot);
    this.removed.delete(doc.id);
    this.countReader(slot, 1);
    this.liveDocs += 1;
    this.totalLength += length;
    // The pools end where the next slot starts: keep a sentinel one past the last slot.
    this.tagStart.reserve(slot + 2);
    this.tagStart.data[slot + 1] = this.tagPool.length;
  }

  /** Takes a live slot's counts out of the statistics; its postings are skipped from now on. */
  private kill(slot: number): void {
    if (this.live.data[slot] !== 1) return;
    this.live.data[slot] = 0;
    this.countReader(slot, -1);
    this.liveDocs -= 1;
    this.totalLength -= this.lengths.data[slot];
    const end = slot + 1 < this.termStart.length ? this.termStart.data[slot + 1] : this.termPool.length;
    for (let i = this.termStart.data[slot]; i < end; i += 1) this.df.data[this.termPool.data[i]] -= 1;
  }

  private countReader(slot: number, change: 1 | -1): void {
    const owner = this.owners.data[slot];
    this.ownerLive.set(owner, (this.ownerLive.get(owner) ?? 0) + change);
    if (this.team.data[slot] === 1) this.teamLive += change;
  }

  private docAt(slot: number): IndexedDoc {
    const end = slot + 1 < this.termStart.length ? this.termStart.data[slot + 1] : this.termPool.length;
    const name = (i: number) => this.stringAt(i);
    const tags = this.tagPool.data.subarray(this.tagStart.data[slot], this.tagStart.data[slot + 1]);
    const termIds = this.termPool.data.subarray(this.termStart.data[slot], end);
    return {
      id: this.ids.data[slot],
      seq: this.seqs.data[slot],
      live: true,
      ownerId: name(this.owners.data[slot]),
      team: this.team.data[slot] === 1,
      tags: [...tags].map(name),
      category: name(this.categories.data[slot]),
      project: this.projects.data[slot] === -3 ? null : name(this.projects.data[slot]),
      createdMs: this.created.data[slot],
      expiresMs: this.expires.data[slot] === Infinity ? null : this.expires.data[slot],
      lexemes: [...termIds].map((t) => this.termNames[t]),
      tfs: [...this.tfPool.data.subarray(this.termStart.data[slot], end)],
      importance: this.importance.data[slot],
    };
  }

  private readonly stringNames: string[] = [];

  private intern(value: string): number {
    let id = this.strings.get(value);
    if (id === undefined) {
      id = this.stringNames.length;
      this.stringNames.push(value);
      this.strings.set(value, id);
    }
    return id;
  }

  private stringAt(id: number): string {
    return this.stringNames[id];
  }

  private termOf(lexeme: string): number {
    let term = this.terms.get(lexeme);
    if (term === undefined) {
      term = this.termNames.length;
      this.termNames.push(lexeme);
      this.terms.set(lexeme, term);
      this.df.push(0);
      this.postings.push({
        docs: new Growable(Int32Array, 4),
        tfs: new Growable(Uint16Array, 4),
        tfMax: 0,
        lengthMin: Infinity,
      });
    }
    return term;
  }
}

/** A creation time in ms (with its fraction) as Postgres keeps it: whole microseconds. */
function micros(createdMs: number): number {
  return Math.round(createdMs * 1000);
}

function isThreadTag(tag: string): boolean {
  return THREAD_TAG_PREFIXES.some((prefix) => tag.startsWith(prefix));
}

/** `createdMs` (milliseconds with microsecond fraction) as `isoTimestamp` formats it in SQL. */
export function isoMicros(ms: number): string {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  const fraction = micros - seconds * 1_000_000;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${String(fraction).padStart(6, '0')}+00:00`;
}

/** One search's inputs to either way of scoring. */
interface Scoring {
  readonly k: number;
  readonly k1: number;
  readonly b: number;
  readonly avgdl: number;
  readonly lengths: Int32Array;
  readonly lists: readonly Postings[];
  /** Per list, its term's IDF. */
  readonly idfs: readonly number[];
  readonly accepts: (slot: number) => boolean;
}

interface Postings {
  readonly docs: Growable<Int32Array>;
  readonly tfs: Growable<Uint16Array>;
  /** The largest weighted tf and the shortest document length among the postings ever added. */
  tfMax: number;
  lengthMin: number;
}

/** The first position at or after `from` whose slot is at least `slot` (galloping, then binary search). */
function seek(docs: Growable<Int32Array>, from: number, slot: number): number {
  const data = docs.data;
  const end = docs.length;
  if (from >= end || data[from] >= slot) return from;
  let step = 1;
  let low = from;
  let high = from + 1;
  while (high < end && data[high] < slot) {
    low = high;
    step *= 2;
    high = from + step;
  }
  if (high > end) high = end;
  // data[low] < slot; the answer is in (low, high].
  while (low + 1 < high) {
    const mid = (low + high) >>> 1;
    if (data[mid] < slot) low = mid;
    else high = mid;
  }
  return high;
}
