import { describe, expect, it } from 'vitest';
import { restates } from './restatement';

const fact = 'We deploy billing with helm 3 and never kubectl apply.';

describe('restates', () => {
  it('holds for the same words with a changed word, case or punctuation', () => {
    expect(restates('We deploy billing using helm 3 and never kubectl apply!', fact)).toBe(true);
    expect(restates('we deploy Billing with Helm 3 and never kubectl apply', fact)).toBe(true);
  });

  it('fails when the same words say the opposite in another order', () => {
    expect(restates('We deploy billing with kubectl apply and never helm 3.', fact)).toBe(false);
  });

  it('fails when a negation is added, removed or changed', () => {
    expect(restates('We deploy billing with helm 3 and kubectl apply.', fact)).toBe(false);
    expect(restates('We never deploy billing with helm 3 and never kubectl apply.', fact)).toBe(false);
    expect(restates("We don't deploy billing with helm 3 and never kubectl apply.", fact)).toBe(false);
  });

  it('fails when a number changes', () => {
    expect(restates('We deploy billing with helm 2 and never kubectl apply.', fact)).toBe(false);
  });

  it('fails for a rewording in other words (left to memory_check and to people)', () => {
    expect(restates('Deployments of billing go through helm 3, never kubectl apply.', fact)).toBe(false);
  });

  it('fails for empty text', () => {
    expect(restates('…', fact)).toBe(false);
  });
});
