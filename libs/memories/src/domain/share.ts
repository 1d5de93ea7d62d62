import type { Memory } from './memory';

/** `read`: see it (and reveal its secret); `write`: also change its content. */
export type SharePermission = 'read' | 'write';
export const SHARE_PERMISSIONS: readonly SharePermission[] = ['read', 'write'];

/** A teammate's memory shared with the reader, with the strongest permission they hold on it. */
export interface SharedMemory extends Memory {
  readonly permission: SharePermission;
}

export interface MyMemoryShare {
  readonly memoryId: number;
  readonly sharedWith: string;
  readonly permission: SharePermission;
  readonly preview: string;
  readonly createdAt: string;
}

export interface MyTagShare {
  readonly tag: string;
  readonly sharedWith: string;
  readonly permission: SharePermission;
  readonly createdAt: string;
}
