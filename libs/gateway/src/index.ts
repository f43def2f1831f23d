export { createGateway, type Gateway } from './gateway';
export {
  DEFAULT_ENGINE_TIMEOUT_MS,
  type GatewayCacheOptions,
  type GatewayListenerOptions,
  type GatewayOptions,
} from './gateway.options';
export type { GatewayLogger } from './gateway.logger';
export { GatewayModule } from './gateway.module';
export { GatewayService, type GatewayRequest } from './gateway.service';
export { DEFAULT_JSON_LIMITS, JsonLimitScanner, type JsonLimits } from './request/json-limits';
export {
  ERROR_TABLE,
  GATEWAY_ERROR_TABLE,
  multiError,
  renderError,
  type RenderedError,
} from './errors/error-table';
export { GatewayError, type GatewayErrorKind } from './errors/gateway-error';
export {
  buildEnvelope,
  renderEngineResponse,
  type Envelope,
  type EngineResult,
  type HttpResult,
} from './response/envelope';
export { buildHelp, type HelpDocument, type OpenApiDocument } from './help/help';
export {
  createListRewriteServer,
  type ListRewriteServerOptions,
} from './http/list-rewrite/list-rewrite-server';
export {
  RequestFramer,
  FramingError,
  rewriteListTarget,
  type FramerLimits,
} from './http/list-rewrite/request-framer';
export { resolveRoute, type Routing } from './routing/route-resolver';
export { MountIndex } from './routing/mount-index';
