import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { CallerContext, RequestOf, ResponseOf } from '@coffer/contracts';
import { oidcContracts as c } from '@coffer/contracts/oidc';
import { Caller, Handles } from '@coffer/transport';
import { OidcConfigService } from './config/oidc-config.service';
import { AuthorizeService } from './grants/authorize.service';
import { TokenExchangeService } from './grants/token-exchange.service';
import { UserinfoService } from './grants/userinfo.service';
import { DiscoveryService } from './keys/discovery.service';
import { OidcKeyService } from './keys/oidc-key.service';

type C = typeof c;

/** identity/oidc/{key,provider,scope,client,assignment}: configuration (no logic here). */
@Controller()
export class OidcConfigHandlers {
  constructor(
    private readonly config: OidcConfigService,
    private readonly keys: OidcKeyService,
  ) {}

  @Handles(c.keyWrite)
  keyWrite(@Payload() req: RequestOf<C['keyWrite']>): Promise<ResponseOf<C['keyWrite']>> {
    return this.keys.write(req);
  }
  @Handles(c.keyRead)
  keyRead(@Payload() req: RequestOf<C['keyRead']>): Promise<ResponseOf<C['keyRead']>> {
    return this.keys.read(req);
  }
  @Handles(c.keyList)
  keyList(@Payload() req: RequestOf<C['keyList']>): Promise<ResponseOf<C['keyList']>> {
    return this.keys.list(req);
  }
  @Handles(c.keyDelete)
  keyDelete(@Payload() req: RequestOf<C['keyDelete']>): Promise<ResponseOf<C['keyDelete']>> {
    return this.keys.delete(req);
  }
  @Handles(c.keyRotate)
  keyRotate(@Payload() req: RequestOf<C['keyRotate']>): Promise<ResponseOf<C['keyRotate']>> {
    return this.keys.rotate(req);
  }
  @Handles(c.keyExists)
  keyExists(@Payload() req: RequestOf<C['keyExists']>): Promise<{ exists: boolean }> {
    return this.config.exists(req, 'key');
  }

  @Handles(c.providerWrite)
  providerWrite(@Payload() req: RequestOf<C['providerWrite']>): Promise<ResponseOf<C['providerWrite']>> {
    return this.config.writeProvider(req);
  }
  @Handles(c.providerRead)
  providerRead(@Payload() req: RequestOf<C['providerRead']>): Promise<ResponseOf<C['providerRead']>> {
    return this.config.readProvider(req);
  }
  @Handles(c.providerList)
  providerList(@Payload() req: RequestOf<C['providerList']>): Promise<ResponseOf<C['providerList']>> {
    return this.config.listProviders(req);
  }
  @Handles(c.providerDelete)
  providerDelete(@Payload() req: RequestOf<C['providerDelete']>): Promise<ResponseOf<C['providerDelete']>> {
    return this.config.deleteProvider(req);
  }
  @Handles(c.providerExists)
  providerExists(@Payload() req: RequestOf<C['providerExists']>): Promise<{ exists: boolean }> {
    return this.config.exists(req, 'provider');
  }

  @Handles(c.scopeWrite)
  scopeWrite(@Payload() req: RequestOf<C['scopeWrite']>): Promise<ResponseOf<C['scopeWrite']>> {
    return this.config.writeScope(req);
  }
  @Handles(c.scopeRead)
  scopeRead(@Payload() req: RequestOf<C['scopeRead']>): Promise<ResponseOf<C['scopeRead']>> {
    return this.config.readScope(req);
  }
  @Handles(c.scopeList)
  scopeList(@Payload() req: RequestOf<C['scopeList']>): Promise<ResponseOf<C['scopeList']>> {
    return this.config.list(req, 'scope');
  }
  @Handles(c.scopeDelete)
  scopeDelete(@Payload() req: RequestOf<C['scopeDelete']>): Promise<ResponseOf<C['scopeDelete']>> {
    return this.config.deleteScope(req);
  }
  @Handles(c.scopeExists)
  scopeExists(@Payload() req: RequestOf<C['scopeExists']>): Promise<{ exists: boolean }> {
    return this.config.exists(req, 'scope');
  }

  @Handles(c.clientWrite)
  clientWrite(@Payload() req: RequestOf<C['clientWrite']>): Promise<ResponseOf<C['clientWrite']>> {
    return this.config.writeClient(req);
  }
  @Handles(c.clientRead)
  clientRead(@Payload() req: RequestOf<C['clientRead']>): Promise<ResponseOf<C['clientRead']>> {
    return this.config.readClient(req);
  }
  @Handles(c.clientList)
  clientList(@Payload() req: RequestOf<C['clientList']>): Promise<ResponseOf<C['clientList']>> {
    return this.config.listClients(req);
  }
  @Handles(c.clientDelete)
  clientDelete(@Payload() req: RequestOf<C['clientDelete']>): Promise<ResponseOf<C['clientDelete']>> {
    return this.config.deleteClient(req);
  }
  @Handles(c.clientExists)
  clientExists(@Payload() req: RequestOf<C['clientExists']>): Promise<{ exists: boolean }> {
    return this.config.exists(req, 'client');
  }

  @Handles(c.assignmentWrite)
  assignmentWrite(
    @Payload() req: RequestOf<C['assignmentWrite']>,
  ): Promise<ResponseOf<C['assignmentWrite']>> {
    return this.config.writeAssignment(req);
  }
  @Handles(c.assignmentRead)
  assignmentRead(@Payload() req: RequestOf<C['assignmentRead']>): Promise<ResponseOf<C['assignmentRead']>> {
    return this.config.readAssignment(req);
  }
  @Handles(c.assignmentList)
  assignmentList(@Payload() req: RequestOf<C['assignmentList']>): Promise<ResponseOf<C['assignmentList']>> {
    return this.config.list(req, 'assignment');
  }
  @Handles(c.assignmentDelete)
  assignmentDelete(
    @Payload() req: RequestOf<C['assignmentDelete']>,
  ): Promise<ResponseOf<C['assignmentDelete']>> {
    return this.config.deleteAssignment(req);
  }
  @Handles(c.assignmentExists)
  assignmentExists(@Payload() req: RequestOf<C['assignmentExists']>): Promise<{ exists: boolean }> {
    return this.config.exists(req, 'assignment');
  }
}

/** The OpenID endpoints of a provider (no logic here). */
@Controller()
export class OidcProviderHandlers {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly authorizer: AuthorizeService,
    private readonly tokens: TokenExchangeService,
    private readonly userinfos: UserinfoService,
  ) {}

  @Handles(c.discovery)
  openidConfiguration(@Payload() req: RequestOf<C['discovery']>): Promise<ResponseOf<C['discovery']>> {
    return this.discovery.discovery(req.mount.namespace, req.params.name);
  }

  @Handles(c.keys)
  jwks(@Payload() req: RequestOf<C['keys']>): Promise<ResponseOf<C['keys']>> {
    return this.discovery.keys(req.mount.namespace, req.params.name);
  }

  @Handles(c.authorizeGet)
  authorizeGet(
    @Payload() req: RequestOf<C['authorizeGet']>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<C['authorizeGet']>> {
    return this.authorizer.authorize(req.mount.namespace, req.params.name, req.query, caller);
  }

  @Handles(c.authorizePost)
  authorizePost(
    @Payload() req: RequestOf<C['authorizePost']>,
    @Caller() caller: CallerContext,
  ): Promise<ResponseOf<C['authorizePost']>> {
    return this.authorizer.authorize(req.mount.namespace, req.params.name, req.body, caller);
  }

  @Handles(c.token)
  token(@Payload() req: RequestOf<C['token']>): Promise<ResponseOf<C['token']>> {
    return this.tokens.exchange(req.mount.namespace, req.params.name, req.body, req.headers['authorization']);
  }

  @Handles(c.userinfo)
  userinfo(@Payload() req: RequestOf<C['userinfo']>): Promise<ResponseOf<C['userinfo']>> {
    return this.userinfos.userinfo(req.mount.namespace, req.params.name, req.headers['authorization']);
  }
}
