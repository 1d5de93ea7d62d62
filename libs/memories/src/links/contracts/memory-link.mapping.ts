import type { MemoryLink, MemoryLinks, NewMemoryLink } from '../../domain/memory-link';
import type { CreateLinkBody, LinkParams } from './memory-link.schemas';

/** The one mapping between the link contracts and the use cases, used by REST and MCP alike. */

export function toNewLink(srcId: number, body: CreateLinkBody): NewMemoryLink {
  return { srcId, dstId: body.target_id, linkType: body.link_type };
}

export function toLinkKey(params: LinkParams): NewMemoryLink {
  return { srcId: params.id, dstId: params.dst, linkType: params.type };
}

export function presentLink(link: MemoryLink) {
  return {
    id: link.id,
    src_id: link.srcId,
    dst_id: link.dstId,
    link_type: link.linkType,
    created_at: link.createdAt,
  };
}

/** Seed shape: `{unlinked: {src_id, dst_id, link_type}}`. */
export function presentUnlinked(link: MemoryLink) {
  return { unlinked: { src_id: link.srcId, dst_id: link.dstId, link_type: link.linkType } };
}

/** A link as memory `memoryId` lists it: the memory at the other end, the type and direction, the link. */
export function presentLinkOf(memoryId: number, link: MemoryLink) {
  const out = link.srcId === memoryId;
  return {
    id: out ? link.dstId : link.srcId,
    type: link.linkType,
    dir: out ? ('out' as const) : ('in' as const),
    link_id: link.id,
    src_id: link.srcId,
    dst_id: link.dstId,
    link_type: link.linkType,
    created_at: link.createdAt,
  };
}

export function presentLinks(memoryId: number, links: MemoryLinks) {
  return {
    links_out: links.out.map((link) => presentLinkOf(memoryId, link)),
    links_in: links.in.map((link) => presentLinkOf(memoryId, link)),
  };
}
