import type { Memory } from '../../domain/memory';
import type { LinkType } from '../../domain/memory-link';
import type { PortableMemoryVersion } from '../../domain/memory-version';
import type { SharePermission } from '../../domain/share';

export const EXPORT_FORMATS = ['json', 'jsonl', 'markdown'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * One of the caller's own memories as exported: every stored field (a sensitive memory's content is
 * its redacted text; the secret stays in the secret store), its outgoing links, its shares and its
 * earlier versions (oldest first; redacted text only, as stored).
 */
export interface ExportedMemory extends Omit<Memory, 'owner' | 'sharedBy'> {
  readonly links: readonly { readonly id: number; readonly linkType: LinkType }[];
  readonly shares: readonly { readonly username: string; readonly permission: SharePermission }[];
  readonly versions: readonly PortableMemoryVersion[];
}

export interface ExportFilter {
  /** Only memories of this project. */
  readonly project?: string;
  /** Only memories changed (or deleted) at or after this ISO time. */
  readonly since?: string;
  /** Also deleted and expired memories (default: only what reads still return). */
  readonly includeDeleted: boolean;
}

export interface ExportInput extends ExportFilter {
  readonly format: ExportFormat;
}
