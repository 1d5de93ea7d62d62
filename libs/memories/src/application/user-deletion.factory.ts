import { type TransactionRunner } from '@app/persistence';
import { type ConfiguredSecretStore } from '@app/secrets';
import { AuditWriter, type TenancyUseCases } from '@app/tenancy';
import { UserDataRepository } from '../adapters/user-data.repository';
import { SecretCleanupRepository } from '../secret-memories/adapters/secret-cleanup.repository';
import { SweepSecretsUseCase } from '../secret-memories/application/sweep-secrets.use-case';
import { DeleteUserUseCase } from './delete-user.use-case';
import { EraseUserDataUseCase } from './erase-user-data.use-case';

/** `users delete` without a Nest container, for the CLI: the same wiring as MemoriesModule. */
export function createUserDeletion(
  tx: TransactionRunner,
  tenancy: Pick<TenancyUseCases, 'findUser' | 'changeUserStatus'>,
  secretStore: ConfiguredSecretStore,
): DeleteUserUseCase {
  const sweep = new SweepSecretsUseCase(tx, new SecretCleanupRepository(), secretStore);
  const erase = new EraseUserDataUseCase(
    tx,
    tenancy.findUser,
    new UserDataRepository(),
    new AuditWriter(),
    sweep,
  );
  return new DeleteUserUseCase(tenancy.changeUserStatus, erase);
}
