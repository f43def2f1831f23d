import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  approleContracts as c,
  mountDisabled,
  type CallerContext,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Handles, OnBroadcast, OptionalCaller } from '@coffer/transport';
import type { z } from 'zod';
import { ApproleRoleService } from './approle-role.service';
import { ApproleSecretIdService } from './approle-secret-id.service';

type Req<K extends keyof typeof c> = RequestOf<(typeof c)[K]>;
type Res<K extends keyof typeof c> = Promise<ResponseOf<(typeof c)[K]>>;

/** auth/<approle mount>/* routes. */
@Controller()
export class ApproleHandlers {
  constructor(
    private readonly roles: ApproleRoleService,
    private readonly secretIds: ApproleSecretIdService,
  ) {}

  @Handles(c.roleExists)
  exists(@Payload() req: Req<'roleExists'>): Promise<{ exists: boolean }> {
    return this.roles.exists(req);
  }

  @Handles(c.roleList)
  list(@Payload() req: Req<'roleList'>): Res<'roleList'> {
    return this.roles.list(req);
  }

  @Handles(c.roleWrite)
  write(@Payload() req: Req<'roleWrite'>): Res<'roleWrite'> {
    return this.roles.write(req);
  }

  @Handles(c.roleRead)
  read(@Payload() req: Req<'roleRead'>): Res<'roleRead'> {
    return this.roles.read(req);
  }

  @Handles(c.roleDelete)
  delete(@Payload() req: Req<'roleDelete'>): Res<'roleDelete'> {
    return this.roles.delete(req);
  }

  @Handles(c.roleFieldRead)
  fieldRead(@Payload() req: Req<'roleFieldRead'>): Res<'roleFieldRead'> {
    return this.roles.fieldRead(req);
  }

  @Handles(c.roleFieldWrite)
  fieldWrite(@Payload() req: Req<'roleFieldWrite'>): Res<'roleFieldWrite'> {
    return this.roles.fieldWrite(req);
  }

  @Handles(c.roleFieldDelete)
  fieldDelete(@Payload() req: Req<'roleFieldDelete'>): Res<'roleFieldDelete'> {
    return this.roles.fieldDelete(req);
  }

  @Handles(c.roleIdRead)
  roleIdRead(@Payload() req: Req<'roleIdRead'>): Res<'roleIdRead'> {
    return this.roles.roleIdRead(req);
  }

  @Handles(c.roleIdWrite)
  roleIdWrite(@Payload() req: Req<'roleIdWrite'>): Res<'roleIdWrite'> {
    return this.roles.roleIdWrite(req);
  }

  @Handles(c.secretIdCreate)
  secretIdCreate(@Payload() req: Req<'secretIdCreate'>): Res<'secretIdCreate'> {
    return this.secretIds.generate(req);
  }

  @Handles(c.customSecretId)
  customSecretId(@Payload() req: Req<'customSecretId'>): Res<'customSecretId'> {
    return this.secretIds.custom(req);
  }

  @Handles(c.secretIdList)
  secretIdList(@Payload() req: Req<'secretIdList'>): Res<'secretIdList'> {
    return this.secretIds.list(req);
  }

  @Handles(c.secretIdLookup)
  secretIdLookup(@Payload() req: Req<'secretIdLookup'>): Res<'secretIdLookup'> {
    return this.secretIds.lookup(req);
  }

  @Handles(c.secretIdDestroy)
  secretIdDestroy(@Payload() req: Req<'secretIdDestroy'>): Res<'secretIdDestroy'> {
    return this.secretIds.destroy(req);
  }

  @Handles(c.accessorLookup)
  accessorLookup(@Payload() req: Req<'accessorLookup'>): Res<'accessorLookup'> {
    return this.secretIds.accessorLookup(req);
  }

  @Handles(c.accessorDestroy)
  accessorDestroy(@Payload() req: Req<'accessorDestroy'>): Res<'accessorDestroy'> {
    return this.secretIds.accessorDestroy(req);
  }

  @Handles(c.tidySecretId)
  tidySecretId(): Res<'tidySecretId'> {
    return this.secretIds.tidy();
  }

  /** Unauthenticated: the context (client address) is there, the token is not. */
  @Handles(c.login)
  login(@Payload() req: Req<'login'>, @OptionalCaller() caller: CallerContext | undefined): Res<'login'> {
    return this.secretIds.login(req, caller);
  }

  /** A disabled approle mount: its roles and secret ids go. Every replica receives this; idempotent. */
  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() event: z.output<typeof mountDisabled.payload>): Promise<void> {
    if (event.type === 'approle') await this.roles.purgeMount(event.uuid);
  }
}
