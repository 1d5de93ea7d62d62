/**
 * The test door: the queue drivers, for suites that run a queue, a consumer or a relay by hand.
 * Production code composes them through JobsRuntimeModule or JobQueueInspectionModule and imports
 * only the index (lint enforces both).
 */
export * from './drivers/in-process.driver';
export * from './drivers/bullmq.driver';
export * from './drivers/bullmq-inspector';
