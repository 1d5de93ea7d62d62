import { Injectable } from '@nestjs/common';
import type { Tx } from '@app/persistence';
import { AuditWriter, type Principal } from '@app/tenancy';
import { MemoryError, MemoryErrorCode } from '../domain/memory.errors';
import { MemoryLinkRepository } from './memory-link.repository';
import type { MemoryLink, NewMemoryLink } from '../domain/memory-link';
import { MemoryLinkError } from '../domain/memory-link.errors';

export interface LinkOptions {
  /** `conflict`: an existing link is an error (409); `keep`: it is returned as is. */
  readonly ifExists: 'conflict' | 'keep';
  /** What the caller needs on the target: to see it (a link), or to change it (storing a successor). */
  readonly target: 'read' | 'write';
}

const forbidden = (id: number) =>
  new MemoryError(
    MemoryErrorCode.Forbidden,
    `Memory ${id} belongs to a teammate: only its owner, a user it is shared with for writing, or an admin may link it`,
  );

/**
 * The rules of making and removing a link, inside the caller's transaction: both ends live and
 * visible (404 otherwise), the source (and, when asked, the target) changeable by the caller
 * (403), no self-link and no supersedes cycle (422).
 */
@Injectable()
export class MemoryLinkWriter {
  constructor(
    private readonly links: MemoryLinkRepository,
    private readonly audit: AuditWriter,
  ) {}

  async link(principal: Principal, tx: Tx, link: NewMemoryLink, options: LinkOptions): Promise<MemoryLink> {
    if (link.srcId === link.dstId) throw MemoryLinkError.selfLink(link.srcId);
    const access = await this.links.accessOf(principal, tx, [link.srcId, link.dstId]);
    const source = access.get(link.srcId);
    const target = access.get(link.dstId);
    if (!source) throw MemoryError.notFound(link.srcId);
    if (!source.writable) throw forbidden(link.srcId);
    if (!target) throw MemoryError.notFound(link.dstId);
    if (options.target === 'write' && !target.writable) throw forbidden(link.dstId);
    if (link.linkType === 'supersedes' && (await this.links.closesCycle(tx, link))) {
      throw MemoryLinkError.cycle(link);
    }
    const created = await this.links.insert(principal, tx, link);
    if (created) {
      await this.record(principal, tx, 'memory.link', created);
      return created;
    }
    const existing = options.ifExists === 'keep' ? await this.links.findOne(principal, tx, link) : null;
    if (!existing) throw MemoryLinkError.exists(link);
    return existing;
  }

  async unlink(principal: Principal, tx: Tx, link: NewMemoryLink): Promise<MemoryLink> {
    const source = (await this.links.accessOf(principal, tx, [link.srcId])).get(link.srcId);
    if (!source) throw MemoryError.notFound(link.srcId);
    if (!source.writable) throw forbidden(link.srcId);
    const removed = await this.links.delete(principal, tx, link);
    if (!removed) throw MemoryLinkError.notFound(link);
    await this.record(principal, tx, 'memory.unlink', removed);
    return removed;
  }

  private record(principal: Principal, tx: Tx, action: string, link: MemoryLink): Promise<void> {
    return this.audit.record(principal, tx, {
      action,
      targetType: 'memory',
      targetId: link.srcId,
      details: { link_id: link.id, dst_id: link.dstId, link_type: link.linkType },
    });
  }
}
