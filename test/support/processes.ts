// The process helpers live in libs/testing (the chaos process harness builds on them).
export {
  ROOT,
  freePort,
  startApiProcess,
  startNodeProcess,
  startWorkerProcess,
  waitForHttp,
  type ApiProcess,
  type RunningProcess,
  type StartOptions,
  type WorkerProcess,
} from '@app/testing';
