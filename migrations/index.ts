import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { OutboxNotify1763700000001 } from './1763700000001-outbox-notify';
import { ApiKeyRevocationReason1763700000002 } from './1763700000002-api-key-revocation-reason';
import { MemoryEmbeddings1763700000003 } from './1763700000003-memory-embeddings';
import { Sync1763700000004 } from './1763700000004-sync';
import { SecretMemories1763700000005 } from './1763700000005-secret-memories';
import { MemoryExpiry1763700000006 } from './1763700000006-memory-expiry';
import { TeamSharing1763700000007 } from './1763700000007-team-sharing';
import { TeamSync1763700000008 } from './1763700000008-team-sync';
import { RecallTextIndex1763700000009 } from './1763700000009-recall-text-index';
import { MemoryLinkRules1763700000010 } from './1763700000010-memory-link-rules';
import { Sessions1763700000011 } from './1763700000011-sessions';
import { SharingStatistics1763700000012 } from './1763700000012-sharing-statistics';
import { TeamSessionVisibility1763700000013 } from './1763700000013-team-session-visibility';
import { SessionEventClientIds1763700000014 } from './1763700000014-session-event-client-ids';
import { SessionExtraction1763700000015 } from './1763700000015-session-extraction';
import { SessionProcessingQueued1763700000016 } from './1763700000016-session-processing-queued';
import { Bm25TextSearch1763700000017 } from './1763700000017-bm25-text-search';
import { PolicySettingsOnce1763700000022 } from './1763700000022-policy-settings-once';
import { OutboxWithoutNotify1763700000023 } from './1763700000023-outbox-without-notify';
import { ReadPathIndexes1763700000024 } from './1763700000024-read-path-indexes';
import { TenantQuotas1763700000025 } from './1763700000025-tenant-quotas';
import { AdminSurface1763700000026 } from './1763700000026-admin-surface';
import { IndexStateSkipped1763700000027 } from './1763700000027-index-state-skipped';
import { RecallTextIndexFeed1763700000028 } from './1763700000028-recall-text-index-feed';
import { RecallDeltaPlpgsql1763700000029 } from './1763700000029-recall-delta-plpgsql';
import { HiddenDuplicates1763700000035 } from './1763700000035-hidden-duplicates';
import { RecallDeltaRanges1763700000036 } from './1763700000036-recall-delta-ranges';
import { OutboxClaimByJob1763700000037 } from './1763700000037-outbox-claim-by-job';
import { RecallVectorIndexFeed1763700000038 } from './1763700000038-recall-vector-index-feed';
import { RecallIndexImportance1763700000039 } from './1763700000039-recall-index-importance';
import { RecallIndexRefresh1763700000040 } from './1763700000040-recall-index-refresh';
import { RecallQueryWords1763700000041 } from './1763700000041-recall-query-words';
import { ProjectIdentity1763700000042 } from './1763700000042-project-identity';
import { CanonicalCategories1763700000043 } from './1763700000043-canonical-categories';
import { MemoryEndorsements1763700000044 } from './1763700000044-memory-endorsements';
import { MemoryVersions1763700000045 } from './1763700000045-memory-versions';
import { AdminPrivateAccess1763700000046 } from './1763700000046-admin-private-access';
import { MemoryPins1763700000047 } from './1763700000047-memory-pins';
import { MemoryReview1763700000048 } from './1763700000048-memory-review';
import { ReviewStateSync1763700000049 } from './1763700000049-review-state-sync';
import { CodeAnchors1763700000050 } from './1763700000050-code-anchors';
import { BranchScope1763700000051 } from './1763700000051-branch-scope';
import { StandbySyncHorizon1763700000052 } from './1763700000052-standby-sync-horizon';
import { TenantKeys1763700000053 } from './1763700000053-tenant-keys';
import { TeamHashIndex1763700000054 } from './1763700000054-team-hash-index';
import { UserIdentities1763700000055 } from './1763700000055-user-identities';
import { Webhooks1763700000056 } from './1763700000056-webhooks';
import { ConsoleSessions1763700000057 } from './1763700000057-console-sessions';
import { TeamDuplicateCheck1763700000058 } from './1763700000058-team-duplicate-check';
import { TeamWritersIndex1763700000059 } from './1763700000059-team-writers-index';
import { InsertBookkeepingTrigger1763700000060 } from './1763700000060-insert-bookkeeping-trigger';
import { RecallTextCoverage1763700000061 } from './1763700000061-recall-text-coverage';

/** Every migration, oldest first. Add new ones at the end. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  OutboxNotify1763700000001,
  ApiKeyRevocationReason1763700000002,
  MemoryEmbeddings1763700000003,
  Sync1763700000004,
  SecretMemories1763700000005,
  MemoryExpiry1763700000006,
  TeamSharing1763700000007,
  TeamSync1763700000008,
  RecallTextIndex1763700000009,
  MemoryLinkRules1763700000010,
  Sessions1763700000011,
  SharingStatistics1763700000012,
  TeamSessionVisibility1763700000013,
  SessionEventClientIds1763700000014,
  SessionExtraction1763700000015,
  SessionProcessingQueued1763700000016,
  Bm25TextSearch1763700000017,
  PolicySettingsOnce1763700000022,
  OutboxWithoutNotify1763700000023,
  ReadPathIndexes1763700000024,
  TenantQuotas1763700000025,
  AdminSurface1763700000026,
  IndexStateSkipped1763700000027,
  RecallTextIndexFeed1763700000028,
  RecallDeltaPlpgsql1763700000029,
  HiddenDuplicates1763700000035,
  RecallDeltaRanges1763700000036,
  OutboxClaimByJob1763700000037,
  RecallVectorIndexFeed1763700000038,
  RecallIndexImportance1763700000039,
  RecallIndexRefresh1763700000040,
  RecallQueryWords1763700000041,
  ProjectIdentity1763700000042,
  CanonicalCategories1763700000043,
  MemoryEndorsements1763700000044,
  MemoryVersions1763700000045,
  AdminPrivateAccess1763700000046,
  MemoryPins1763700000047,
  MemoryReview1763700000048,
  ReviewStateSync1763700000049,
  CodeAnchors1763700000050,
  BranchScope1763700000051,
  StandbySyncHorizon1763700000052,
  TenantKeys1763700000053,
  TeamHashIndex1763700000054,
  UserIdentities1763700000055,
  Webhooks1763700000056,
  ConsoleSessions1763700000057,
  TeamDuplicateCheck1763700000058,
  TeamWritersIndex1763700000059,
  InsertBookkeepingTrigger1763700000060,
  RecallTextCoverage1763700000061,
];

/** The data migrations, which their tests run again on rows they write the old way. */
export { ProjectIdentity1763700000042, CanonicalCategories1763700000043 };
