import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  mountDisabled,
  userpassContracts,
  type CallerContext,
  type ResponseOf,
  type RequestOf,
} from '@coffer/contracts';
import { Handles, OnBroadcast, OptionalCaller } from '@coffer/transport';
import type { z } from 'zod';
import { UserpassService } from './userpass.service';

/** auth/<userpass mount>/* routes. */
@Controller()
export class UserpassHandlers {
  constructor(private readonly users: UserpassService) {}

  @Handles(userpassContracts.userExists)
  exists(@Payload() req: RequestOf<typeof userpassContracts.userExists>): Promise<{ exists: boolean }> {
    return this.users.exists(req);
  }

  @Handles(userpassContracts.userWrite)
  write(
    @Payload() req: RequestOf<typeof userpassContracts.userWrite>,
  ): Promise<ResponseOf<typeof userpassContracts.userWrite>> {
    return this.users.write(req);
  }

  @Handles(userpassContracts.userRead)
  read(
    @Payload() req: RequestOf<typeof userpassContracts.userRead>,
  ): Promise<ResponseOf<typeof userpassContracts.userRead>> {
    return this.users.read(req);
  }

  @Handles(userpassContracts.userDelete)
  delete(
    @Payload() req: RequestOf<typeof userpassContracts.userDelete>,
  ): Promise<ResponseOf<typeof userpassContracts.userDelete>> {
    return this.users.delete(req);
  }

  @Handles(userpassContracts.userList)
  list(
    @Payload() req: RequestOf<typeof userpassContracts.userList>,
  ): Promise<ResponseOf<typeof userpassContracts.userList>> {
    return this.users.list(req);
  }

  @Handles(userpassContracts.userPassword)
  setPassword(
    @Payload() req: RequestOf<typeof userpassContracts.userPassword>,
  ): Promise<ResponseOf<typeof userpassContracts.userPassword>> {
    return this.users.setPassword(req);
  }

  @Handles(userpassContracts.userPolicies)
  setPolicies(
    @Payload() req: RequestOf<typeof userpassContracts.userPolicies>,
  ): Promise<ResponseOf<typeof userpassContracts.userPolicies>> {
    return this.users.setPolicies(req);
  }

  /** Unauthenticated: the context (client address) is there, the token is not. */
  @Handles(userpassContracts.login)
  login(
    @Payload() req: RequestOf<typeof userpassContracts.login>,
    @OptionalCaller() caller: CallerContext | undefined,
  ): Promise<ResponseOf<typeof userpassContracts.login>> {
    return this.users.login(req, caller);
  }

  /**
   * A disabled userpass mount: its users go (the mounts aggregate has already revoked the tokens
   * issued through it). Every replica receives this; the purge is idempotent.
   */
  @OnBroadcast(mountDisabled)
  async mountDisabled(@Payload() event: z.output<typeof mountDisabled.payload>): Promise<void> {
    if (event.type === 'userpass') await this.users.purgeMount(event.uuid);
  }
}
