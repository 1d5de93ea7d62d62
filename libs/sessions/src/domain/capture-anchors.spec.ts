import { describe, expect, it } from 'vitest';
import { captureAnchors } from './capture-anchors';

const H1 = 'a'.repeat(40);
const session = { project: 'github.com/acme/pay', gitCommit: 'abc1234' };

describe('captureAnchors', () => {
  it('anchors the touched files the memory names, by path or by a file name only one of them has', () => {
    const touched = [
      { path: 'src/pay.ts', hash: H1 },
      { path: 'src/webhooks/handler.ts', hash: null },
      { path: 'lib/util.ts', hash: H1 },
      { path: 'test/util.ts', hash: H1 },
    ];
    expect(
      captureAnchors(
        'The retry in src/pay.ts must stay idempotent; handler.ts dedupes. util.ts is shared.',
        touched,
        session,
      ),
    ).toEqual([
      { repo: 'github.com/acme/pay', path: 'src/pay.ts', commit: 'abc1234', hash: H1 },
      { repo: 'github.com/acme/pay', path: 'src/webhooks/handler.ts', commit: 'abc1234' },
    ]);
  });

  it('anchors nothing without a project, nor for a name inside a longer path or word', () => {
    const touched = [{ path: 'src/pay.ts', hash: H1 }];
    expect(captureAnchors('see src/pay.ts', touched, { project: null, gitCommit: null })).toEqual([]);
    expect(captureAnchors('see lib/src/pay.ts and src/pay.tsx', touched, session)).toEqual([]);
    expect(captureAnchors('Nothing about files here', touched, session)).toEqual([]);
  });

  it('ignores paths that climb out of the repository and ids that are not blob ids', () => {
    const touched = [
      { path: '../etc/passwd.ts', hash: H1 },
      { path: 'src/pay.ts', hash: 'not-a-hash' },
    ];
    expect(
      captureAnchors('src/pay.ts and ../etc/passwd.ts', touched, { ...session, gitCommit: 'zz' }),
    ).toEqual([{ repo: 'github.com/acme/pay', path: 'src/pay.ts' }]);
  });
});
