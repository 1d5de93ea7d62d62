import fc from 'fast-check';
import type { Perm, Visibility } from './world';

export type Via = 'rest' | 'mcp';

/**
 * One step of a generated sequence. `actor`, `target` and `from` index the lane's actors or share
 * targets; `mem` and `sess` index the run's memories and sessions (modulo their number), whoever
 * owns them: ids of other users and other tenants are used on purpose. `probes` are the actors
 * that read the step's memory by id afterwards.
 */
export type Action = { readonly actor: number; readonly via: Via; readonly probes: readonly number[] } & (
  | { kind: 'create'; visibility: Visibility; tagMask: number; secret: boolean }
  | Each<'get' | 'delete' | 'restore' | 'purge' | 'reveal' | 'check', { mem: number }>
  | { kind: 'update'; mem: number; what: 'content' | 'secret' | 'tags' | 'importance'; tagMask: number }
  | { kind: 'visibility'; mem: number; to: Visibility }
  | { kind: 'link'; mem: number; to: number; type: LinkType }
  | { kind: 'share'; mem: number; target: number; perm: Perm }
  | { kind: 'unshare'; mem: number; target: number }
  | { kind: 'shareTag'; tag: number; target: number; perm: Perm }
  | { kind: 'unshareTag'; tag: number; target: number }
  | Each<'recall' | 'list' | 'sharedWithMe' | 'myShares' | 'startup' | 'tags' | 'export' | 'seed', object>
  | { kind: 'sync' }
  | { kind: 'syncSwap'; from: number }
  | Each<'sessionStart' | 'sessionList', object>
  | Each<'sessionNote' | 'sessionRead' | 'sessionEnd', { sess: number }>
);

/** One union member per kind, so that a switch on `kind` narrows to its fields. */
type Each<K extends string, F> = K extends string ? { kind: K } & F : never;

/** Link types that change no recall answer (a supersedes link would redirect hits). */
export type LinkType = 'see-also' | 'part-of';

/** Tags of a run every memory may carry (besides its own marker), for tag rules. */
export const RUN_TAGS = 3;

export function actionArbitrary(actors: number, targets: number): fc.Arbitrary<Action> {
  const base = {
    actor: fc.nat({ max: actors - 1 }),
    via: fc.constantFrom<Via>('rest', 'mcp'),
    probes: fc.uniqueArray(fc.nat({ max: actors - 1 }), { maxLength: 4 }),
  };
  const mem = fc.nat({ max: 1000 });
  const sess = fc.nat({ max: 1000 });
  const target = fc.nat({ max: targets - 1 });
  const perm = fc.constantFrom<Perm>('read', 'write');
  const tagMask = fc.nat({ max: (1 << RUN_TAGS) - 1 });
  const tag = fc.nat({ max: RUN_TAGS - 1 });
  const kinds = <K extends string>(...names: K[]) => fc.constantFrom(...names);
  const variants: fc.WeightedArbitrary<Action>[] = [
    {
      weight: 6,
      arbitrary: fc.record({
        ...base,
        kind: fc.constant('create' as const),
        visibility: fc.constantFrom<Visibility>('private', 'team'),
        tagMask,
        secret: fc.boolean(),
      }),
    },
    { weight: 4, arbitrary: fc.record({ ...base, kind: fc.constant('get' as const), mem }) },
    { weight: 3, arbitrary: fc.record({ ...base, kind: fc.constant('reveal' as const), mem }) },
    { weight: 1, arbitrary: fc.record({ ...base, kind: fc.constant('check' as const), mem }) },
    { weight: 4, arbitrary: fc.record({ ...base, kind: kinds('delete', 'restore', 'purge'), mem }) },
    {
      weight: 5,
      arbitrary: fc.record({
        ...base,
        kind: fc.constant('update' as const),
        mem,
        what: fc.constantFrom('content', 'secret', 'tags', 'importance'),
        tagMask,
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        ...base,
        kind: fc.constant('visibility' as const),
        mem,
        to: fc.constantFrom<Visibility>('private', 'team'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        ...base,
        kind: fc.constant('link' as const),
        mem,
        to: mem,
        type: fc.constantFrom<LinkType>('see-also', 'part-of'),
      }),
    },
    { weight: 5, arbitrary: fc.record({ ...base, kind: fc.constant('share' as const), mem, target, perm }) },
    { weight: 3, arbitrary: fc.record({ ...base, kind: fc.constant('unshare' as const), mem, target }) },
    {
      weight: 2,
      arbitrary: fc.record({ ...base, kind: fc.constant('shareTag' as const), tag, target, perm }),
    },
    { weight: 1, arbitrary: fc.record({ ...base, kind: fc.constant('unshareTag' as const), tag, target }) },
    {
      weight: 6,
      arbitrary: fc.record({
        ...base,
        kind: kinds('recall', 'list', 'sharedWithMe', 'myShares', 'startup', 'tags', 'export', 'seed'),
      }),
    },
    { weight: 3, arbitrary: fc.record({ ...base, kind: fc.constant('sync' as const) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        ...base,
        kind: fc.constant('syncSwap' as const),
        from: fc.nat({ max: actors - 1 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ ...base, kind: kinds('sessionStart', 'sessionList') }) },
    {
      weight: 3,
      arbitrary: fc.record({ ...base, kind: kinds('sessionNote', 'sessionRead', 'sessionEnd'), sess }),
    },
  ];
  return fc.oneof(...variants);
}

/** A run: a few memories first (so ids exist to swap), then the generated steps. */
export function runArbitrary(actors: number, targets: number, steps: number): fc.Arbitrary<Action[]> {
  const opening = fc.array(
    fc.record({
      actor: fc.nat({ max: actors - 1 }),
      via: fc.constantFrom<Via>('rest', 'mcp'),
      probes: fc.constant([] as number[]),
      kind: fc.constant('create' as const),
      visibility: fc.constantFrom<Visibility>('private', 'team'),
      tagMask: fc.nat({ max: (1 << RUN_TAGS) - 1 }),
      secret: fc.boolean(),
    }),
    { minLength: 4, maxLength: 4 },
  );
  const rest = fc.array(actionArbitrary(actors, targets), { minLength: steps, maxLength: steps });
  return fc.tuple(opening, rest).map(([first, then]) => [...first, ...then]);
}

/** The steps of the given kinds, with the fields those kinds carry. */
export type StepOf<K extends Action['kind']> = Extract<Action, { kind: K }>;
