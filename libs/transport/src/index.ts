export * from './transport-types';
export {
  DEFAULT_TIMEOUT_MS,
  describeCause,
  formatIssues,
  fromWireError,
  isServerFault,
  noReplicaError,
  timeoutError,
  wasLogged,
} from './transport-errors';
export { connectNatsTransport, NatsTransport, type NatsTransportOptions } from './nats-transport';
export { InProcessTransport, type InProcessTransportOptions } from './in-process-transport';
export { SERVICE_CONTEXT_KEY, ATTR_ERROR_CODE, activeTraceId } from './tracing';
export { ATTR_PEER_SERVICE, ATTR_SERVICE, ATTR_SUBJECT, serviceOf } from './subjects';
export * from './nest';
export { currentCaller, withCaller, withCallerOf } from './caller-scope';
export { CachedValue } from './cached-value';
