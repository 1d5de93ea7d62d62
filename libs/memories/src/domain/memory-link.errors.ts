import { DomainError, type ErrorKind } from '@app/kernel';
import type { NewMemoryLink } from './memory-link';

export enum MemoryLinkErrorCode {
  SelfLink = 'link_to_self',
  SupersedesCycle = 'supersedes_cycle',
  Exists = 'link_exists',
  NotFound = 'link_not_found',
}

const KIND: Record<MemoryLinkErrorCode, ErrorKind> = {
  [MemoryLinkErrorCode.SelfLink]: 'invalid',
  [MemoryLinkErrorCode.SupersedesCycle]: 'invalid',
  [MemoryLinkErrorCode.Exists]: 'conflict',
  [MemoryLinkErrorCode.NotFound]: 'not_found',
};

const describe = (link: NewMemoryLink) => `${link.srcId} ${link.linkType} ${link.dstId}`;

export class MemoryLinkError extends DomainError<MemoryLinkErrorCode> {
  constructor(code: MemoryLinkErrorCode, message: string) {
    super(KIND[code], code, message);
    this.name = 'MemoryLinkError';
  }

  static selfLink(id: number): MemoryLinkError {
    return new MemoryLinkError(MemoryLinkErrorCode.SelfLink, `Memory ${id} cannot link to itself`);
  }

  static cycle(link: NewMemoryLink): MemoryLinkError {
    return new MemoryLinkError(
      MemoryLinkErrorCode.SupersedesCycle,
      `supersedes cycle: memory ${link.dstId} already (transitively) supersedes memory ${link.srcId}`,
    );
  }

  static exists(link: NewMemoryLink): MemoryLinkError {
    return new MemoryLinkError(MemoryLinkErrorCode.Exists, `Link ${describe(link)} already exists`);
  }

  static notFound(link: NewMemoryLink): MemoryLinkError {
    return new MemoryLinkError(MemoryLinkErrorCode.NotFound, `Link ${describe(link)} not found`);
  }
}
