/**
 * The isolation fuzz's model of who may see what: every memory and session the suite made, its
 * owner, tenant, visibility, shares and tag rules, and the rules of docs/api.md and docs/security.md
 * as plain functions. Every memory and session carries a unique marker token in its text, so a
 * response can be checked for leaks by finding the markers in it and asking the model whether the
 * caller may see each one.
 */

export type Perm = 'read' | 'write';
export type Visibility = 'private' | 'team';
/** What an answer means, whatever the transport: REST status or MCP `[code]`. */
export type Outcome = 'ok' | 'not_found' | 'forbidden' | 'conflict' | 'bad_request' | 'other';
/**
 * Which rule a response is held to: `live` (lists, gets, recall: live memories the caller reads),
 * `raw` (sync rows and answers to writes: memories the caller reads, deleted or not), `own` (check,
 * export: the caller's own memories only).
 */
export type View = 'live' | 'raw' | 'own';

export interface Actor {
  readonly name: string;
  readonly key: string;
  readonly tenant: string;
  readonly user: string;
  readonly admin: boolean;
  /** Holds `secrets:read`. */
  readonly secrets: boolean;
}

export interface MemoryModel {
  readonly id: number;
  readonly marker: string;
  readonly tenant: string;
  readonly owner: string;
  visibility: Visibility;
  tags: string[];
  deleted: boolean;
  purged: boolean;
  /** The secret's plaintext while the memory is sensitive. */
  secret: string | null;
  /** Bumped by every content change; the content carries `v<version>`. */
  version: number;
  readonly shares: Map<string, Perm>;
}

export interface SessionModel {
  readonly id: string;
  readonly marker: string;
  readonly tenant: string;
  readonly owner: string;
}

export type Entity = { kind: 'memory'; memory: MemoryModel } | { kind: 'session'; session: SessionModel };

/** Markers: `qz<lane>r<run>n<k>w` for memories, `qz<lane>r<run>s<k>w` for sessions. */
export const MARKER_PATTERN = /qz\d+r\d+[ns]\d+w/g;
/** GitHub-token-shaped secrets the suite stores; any of them outside an allowed reveal is a leak. */
export const SECRET_PATTERN = /ghp_[A-Za-z0-9]{36}/g;

const better = (a: Perm | undefined, b: Perm | undefined): Perm | undefined =>
  a === 'write' || b === 'write' ? 'write' : (a ?? b);

/** The state of every lane: shared so that a marker of another lane (another tenant) is known too. */
export class World {
  readonly byMarker = new Map<string, Entity>();
  readonly byId = new Map<number, MemoryModel>();
  readonly bySecret = new Map<string, MemoryModel>();
  readonly sessions = new Map<string, SessionModel>();
  /** Links made: `src dst type`. */
  readonly links = new Set<string>();
  /** `tenant owner tag with` → permission. */
  private readonly tagRules = new Map<string, Perm>();

  addMemory(memory: MemoryModel): void {
    this.byMarker.set(memory.marker, { kind: 'memory', memory });
    this.byId.set(memory.id, memory);
    if (memory.secret) this.bySecret.set(memory.secret, memory);
  }

  addSession(session: SessionModel): void {
    this.byMarker.set(session.marker, { kind: 'session', session });
    this.sessions.set(session.id, session);
  }

  setSecret(memory: MemoryModel, secret: string | null): void {
    memory.secret = secret;
    if (secret) this.bySecret.set(secret, memory);
  }

  setTagRule(tenant: string, owner: string, tag: string, withUser: string, perm: Perm | null): void {
    const key = [tenant, owner, tag, withUser].join('\u0000');
    if (perm) this.tagRules.set(key, perm);
    else this.tagRules.delete(key);
  }

  /** The strongest share `user` holds on `m`: direct, or a tag rule of its owner covering a tag. */
  share(m: MemoryModel, user: string): Perm | undefined {
    let perm = m.shares.get(user);
    for (const tag of m.tags)
      perm = better(perm, this.tagRules.get([m.tenant, m.owner, tag, user].join('\u0000')));
    return perm;
  }

  /** Reads `m` if it were live: owner, team, a share, or an admin of its tenant. */
  readsRaw(a: Actor, m: MemoryModel): boolean {
    if (a.tenant !== m.tenant || m.purged) return false;
    return a.user === m.owner || m.visibility === 'team' || a.admin || this.share(m, a.user) !== undefined;
  }

  /** A link's answer: both ends live and visible (404), the source changeable (403), once (409). */
  linkOutcome(a: Actor, src: MemoryModel, dst: MemoryModel, type: string): Outcome {
    if (!this.readsLive(a, src)) return 'not_found';
    if (a.user !== src.owner && !a.admin && this.share(src, a.user) !== 'write') return 'forbidden';
    if (!this.readsLive(a, dst)) return 'not_found';
    return this.links.has(`${src.id} ${dst.id} ${type}`) ? 'conflict' : 'ok';
  }

  /** Would `a` still read `m` with these tags? */
  keepsAfter(a: Actor, m: MemoryModel, tags: string[]): boolean {
    const before = m.tags;
    m.tags = tags;
    const keeps = this.readsRaw(a, m);
    m.tags = before;
    return keeps;
  }

  readsLive(a: Actor, m: MemoryModel): boolean {
    return !m.deleted && this.readsRaw(a, m);
  }

  readsSession(a: Actor, s: SessionModel): boolean {
    return a.tenant === s.tenant && (a.user === s.owner || a.admin);
  }

  /** May `a` see `entity` in a response held to `view`? */
  allowed(a: Actor, entity: Entity, view: View): boolean {
    if (entity.kind === 'session') {
      const s = entity.session;
      return view === 'own' ? a.tenant === s.tenant && a.user === s.owner : this.readsSession(a, s);
    }
    const m = entity.memory;
    if (view === 'own') return a.tenant === m.tenant && a.user === m.owner && !m.purged;
    return view === 'raw' ? this.readsRaw(a, m) : this.readsLive(a, m);
  }

  /**
   * What a change answers (ownerScopeFor): allowed to the owner, an admin, and for `edit` a `write`
   * share; otherwise 403 when the caller reads the memory, 404 when not (or another tenant's).
   */
  decide(a: Actor, m: MemoryModel, change: 'edit' | 'manage'): 'allowed' | 'forbidden' | 'not_found' {
    if (a.tenant !== m.tenant || m.purged) return 'not_found';
    const allowed = a.user === m.owner || a.admin || (change === 'edit' && this.share(m, a.user) === 'write');
    if (allowed) return 'allowed';
    return this.readsLive(a, m) ? 'forbidden' : 'not_found';
  }

  /** Who gets a sensitive memory's secret: `secrets:read`, and the owner, a share, or an admin. */
  reveal(a: Actor, m: MemoryModel): Outcome {
    if (!a.secrets) return 'forbidden';
    if (!this.readsLive(a, m)) return 'not_found';
    if (m.secret === null) return 'ok';
    return a.user === m.owner || a.admin || this.share(m, a.user) !== undefined ? 'ok' : 'forbidden';
  }

  /** A session's answer for reading it (`read`) or writing to it (`write`: events, end). */
  sessionOutcome(a: Actor, s: SessionModel, access: 'read' | 'write'): Outcome {
    if (a.tenant !== s.tenant) return 'not_found';
    if (a.user === s.owner) return 'ok';
    if (!a.admin) return 'not_found';
    return access === 'read' ? 'ok' : 'forbidden';
  }

  /** A readable description of a memory's state, for failure messages. */
  describe(m: MemoryModel): string {
    const shares = [...m.shares].map(([u, p]) => `${u}:${p}`).join(',');
    return `#${m.id} ${m.marker} owner=${m.owner}@${m.tenant} ${m.visibility} tags=[${m.tags.join(',')}] shares=[${shares}]${m.deleted ? ' deleted' : ''}${m.purged ? ' purged' : ''}${m.secret ? ' sensitive' : ''}`;
  }
}
