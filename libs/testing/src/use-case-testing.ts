import type { Provider, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { TenantScope, Tx } from '@app/persistence';
import { ALL_SCOPES, MEMBER_SCOPES, type Principal } from '@app/tenancy';

/** A port (a class or an injection token) and the fake that stands in for it. */
export type PortFake = readonly [port: unknown, fake: unknown];

/**
 * The use case as Nest builds it (its constructor's tokens, `@Inject` included), with every port
 * it needs given as a fake: nothing else is provided, so a port left out fails here, by name.
 */
export async function useCaseWithFakes<T>(useCase: Type<T>, fakes: readonly PortFake[]): Promise<T> {
  const providers: Provider[] = fakes.map(([provide, useValue]) => ({
    provide: provide as Type<unknown>,
    useValue,
  }));
  const module = await Test.createTestingModule({ providers: [useCase, ...providers] }).compile();
  return module.get(useCase);
}

/** What a faked transaction runner hands its callbacks, and the calls it was asked for. */
export interface FakeTransactions {
  readonly tx: Tx;
  readonly runs: Array<{ kind: 'tenant' | 'system'; scope?: TenantScope }>;
  inTenant<T>(scope: TenantScope, work: (tx: Tx) => Promise<T>): Promise<T>;
  asSystem<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}

/**
 * A stand-in for `TransactionRunner` that runs each callback at once with one shared fake `Tx`
 * (whose `query` fails: a use case under test reaches the database only through its faked ports).
 */
export function fakeTransactions(): FakeTransactions {
  const tx = {
    query: () => Promise.reject(new Error('a use-case spec reaches SQL only through its faked ports')),
  } as unknown as Tx;
  const runs: FakeTransactions['runs'] = [];
  return {
    tx,
    runs,
    inTenant: (scope, work) => {
      runs.push({ kind: 'tenant', scope });
      return work(tx);
    },
    asSystem: (work) => {
      runs.push({ kind: 'system' });
      return work(tx);
    },
  };
}

/** A member (or, with `admin`, an admin) of tenant `t1` for specs that need no database. */
export function specPrincipal(
  userId: string,
  options: { admin?: boolean; scopes?: Principal['scopes'] } = {},
): Principal {
  return {
    tenantId: 't1',
    tenantSlug: 'acme',
    userId,
    username: userId,
    keyId: `key-${userId}`,
    scopes: options.scopes ?? (options.admin ? ALL_SCOPES : MEMBER_SCOPES),
  };
}
