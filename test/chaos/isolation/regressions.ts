import type { Action, Via } from './actions';

/**
 * Fixed sequences run before the generated ones, each a rule that is easy to get wrong. Actors:
 * 0 alice, 1 bob, 2 dave, 3 tenant A's admin, 4 alice's key without secrets:read, 5 carol,
 * 6 tenant B's bob, 7 tenant B's admin. Share targets: 0 alice, 1 bob, 2 dave, 3 root, 4 carol.
 * Every step is probed by every actor.
 */
const ALL = [0, 1, 2, 3, 4, 5, 6, 7];
const at = (actor: number, via: Via = 'rest') => ({ actor, via, probes: ALL });

export const REGRESSIONS: Record<string, Action[]> = {
  'an admin replaces a member’s secret: the owner and the admin reveal the new one, a teammate nothing': [
    { ...at(0), kind: 'create', visibility: 'team', tagMask: 0, secret: true },
    { ...at(3), kind: 'update', mem: 0, what: 'secret', tagMask: 0 },
    { ...at(0), kind: 'reveal', mem: 0 },
    { ...at(3, 'mcp'), kind: 'reveal', mem: 0 },
    { ...at(1), kind: 'reveal', mem: 0 },
    { ...at(4, 'mcp'), kind: 'reveal', mem: 0 },
    { ...at(0), kind: 'sync' },
  ],
  'a write share edits but neither re-shares, makes team, deletes nor plants a secret': [
    { ...at(0), kind: 'create', visibility: 'private', tagMask: 1, secret: true },
    { ...at(0, 'mcp'), kind: 'share', mem: 0, target: 1, perm: 'write' },
    { ...at(1), kind: 'reveal', mem: 0 },
    { ...at(1, 'mcp'), kind: 'update', mem: 0, what: 'content', tagMask: 0 },
    { ...at(1), kind: 'update', mem: 0, what: 'secret', tagMask: 0 },
    { ...at(1), kind: 'share', mem: 0, target: 2, perm: 'read' },
    { ...at(1, 'mcp'), kind: 'visibility', mem: 0, to: 'team' },
    { ...at(1), kind: 'delete', mem: 0 },
    { ...at(0), kind: 'reveal', mem: 0 },
  ],
  'a tag rule shares what carries the tag, for as long as it does': [
    { ...at(0), kind: 'create', visibility: 'private', tagMask: 1, secret: false },
    { ...at(0), kind: 'shareTag', tag: 0, target: 1, perm: 'write' },
    { ...at(1, 'mcp'), kind: 'update', mem: 0, what: 'tags', tagMask: 2 },
    { ...at(1), kind: 'get', mem: 0 },
    { ...at(1), kind: 'sync' },
    { ...at(0, 'mcp'), kind: 'update', mem: 0, what: 'tags', tagMask: 1 },
    { ...at(1), kind: 'sync' },
    { ...at(0), kind: 'unshareTag', tag: 0, target: 1 },
    { ...at(1), kind: 'sync' },
  ],
  'a deleted memory leaves the sharer’s reads, stays in their sync, and leaves it when unshared': [
    { ...at(0), kind: 'create', visibility: 'private', tagMask: 0, secret: false },
    { ...at(0), kind: 'share', mem: 0, target: 1, perm: 'read' },
    { ...at(1), kind: 'sync' },
    { ...at(0, 'mcp'), kind: 'delete', mem: 0 },
    { ...at(1), kind: 'sync' },
    { ...at(1), kind: 'restore', mem: 0 },
    { ...at(0), kind: 'unshare', mem: 0, target: 1 },
    { ...at(1), kind: 'sync' },
    { ...at(0), kind: 'purge', mem: 0 },
    { ...at(3), kind: 'purge', mem: 0 },
    { ...at(0), kind: 'sync' },
  ],
  'sync cursors work for their own user and reach only': [
    { ...at(0), kind: 'create', visibility: 'private', tagMask: 0, secret: false },
    { ...at(0), kind: 'sync' },
    { ...at(3), kind: 'sync' },
    { ...at(5), kind: 'sync' },
    { ...at(4), kind: 'syncSwap', from: 0 },
    { ...at(1), kind: 'syncSwap', from: 0 },
    { ...at(5), kind: 'syncSwap', from: 0 },
    { ...at(0), kind: 'syncSwap', from: 3 },
    { ...at(7), kind: 'syncSwap', from: 3 },
    { ...at(3), kind: 'syncSwap', from: 5 },
  ],
  'sessions: their user writes, the tenant’s admin reads, nobody else learns of them': [
    { ...at(0), kind: 'create', visibility: 'private', tagMask: 0, secret: false },
    { ...at(0, 'mcp'), kind: 'sessionStart' },
    { ...at(0), kind: 'sessionNote', sess: 0 },
    { ...at(1, 'mcp'), kind: 'sessionNote', sess: 0 },
    { ...at(3), kind: 'sessionNote', sess: 0 },
    { ...at(3), kind: 'sessionRead', sess: 0 },
    { ...at(5, 'mcp'), kind: 'sessionRead', sess: 0 },
    { ...at(7), kind: 'sessionEnd', sess: 0 },
    { ...at(0, 'mcp'), kind: 'sessionEnd', sess: 0 },
    { ...at(1), kind: 'sessionList' },
  ],
  'another tenant’s ids, users and admin change and see nothing': [
    { ...at(0), kind: 'create', visibility: 'team', tagMask: 1, secret: true },
    { ...at(5), kind: 'create', visibility: 'team', tagMask: 1, secret: false },
    { ...at(0), kind: 'share', mem: 0, target: 4, perm: 'write' },
    { ...at(5), kind: 'share', mem: 1, target: 1, perm: 'read' },
    { ...at(7), kind: 'share', mem: 0, target: 1, perm: 'write' },
    { ...at(7, 'mcp'), kind: 'update', mem: 0, what: 'content', tagMask: 0 },
    { ...at(7), kind: 'reveal', mem: 0 },
    { ...at(7, 'mcp'), kind: 'delete', mem: 0 },
    { ...at(6), kind: 'shareTag', tag: 0, target: 0, perm: 'read' },
    { ...at(6), kind: 'recall' },
    { ...at(1), kind: 'list' },
  ],
};
