import { describe, expect, it } from 'vitest';
import { byCanonicalOrder, canonicalCategory } from './categories';

describe('canonical categories', () => {
  it('folds a canonical category’s singular and any case into its plural', () => {
    expect(['decision', 'Decisions', 'decisions', ' DECISION '].map(canonicalCategory)).toEqual([
      'decisions',
      'decisions',
      'decisions',
      'decisions',
    ]);
    expect(['fact', 'preference', 'gotcha', 'runbook', 'correction', 'note'].map(canonicalCategory)).toEqual([
      'facts',
      'preferences',
      'gotchas',
      'runbooks',
      'corrections',
      'notes',
    ]);
  });

  it('keeps other categories as given, lowercased (custom ones are not folded)', () => {
    expect(['architecture', 'Credential', 'news', 'facts-old'].map(canonicalCategory)).toEqual([
      'architecture',
      'credential',
      'news',
      'facts-old',
    ]);
  });

  it('orders the canonical categories first, then the others by name', () => {
    expect(['zeta', 'notes', 'alpha', 'facts', 'decisions'].sort(byCanonicalOrder)).toEqual([
      'facts',
      'decisions',
      'notes',
      'alpha',
      'zeta',
    ]);
  });
});
