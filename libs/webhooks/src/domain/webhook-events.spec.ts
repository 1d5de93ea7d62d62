import { describe, expect, it } from 'vitest';
import { expandEventPatterns, WEBHOOK_EVENT_TYPES } from './webhook-events';

describe('expandEventPatterns', () => {
  it('expands families and the wildcard, keeps the canonical order, drops repeats', () => {
    expect(expandEventPatterns(['memory.proposal.*']).events).toEqual([
      'memory.proposal.created',
      'memory.proposal.accepted',
      'memory.proposal.rejected',
    ]);
    expect(expandEventPatterns(['session.ended', 'memory.created', 'memory.created']).events).toEqual([
      'memory.created',
      'session.ended',
    ]);
    expect(expandEventPatterns(['*']).events).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(expandEventPatterns(['memory.*']).events).not.toContain('session.ended');
  });

  it('reports names that match nothing', () => {
    expect(expandEventPatterns(['memory.created', 'memory.exploded', 'user.*'])).toEqual({
      events: ['memory.created'],
      unknown: ['memory.exploded', 'user.*'],
    });
  });
});
