/**
 * A pin puts a memory first in a session's startup context. `user`: the caller's own pin, for
 * their own startup context; `team`: an admin's pin of a team-visible memory, for everyone's.
 */
export const PIN_SCOPES = ['user', 'team'] as const;
export type PinScope = (typeof PIN_SCOPES)[number];

/** The pins a reader sees on a memory (a team pin, their own), team first. */
export type MemoryPins = readonly PinScope[];
