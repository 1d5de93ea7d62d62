// The proxy lives in libs/testing (the chaos process harness puts it in front of its API processes).
export {
  startRoundRobinProxy,
  type ProxiedRequest,
  type RoundRobinProxy,
  type RoundRobinProxyOptions,
} from '@app/testing';
