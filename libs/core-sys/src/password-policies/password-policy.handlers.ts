import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  corePasswordGenerate,
  passwordPolicyContracts as c,
  type RequestOf,
  type ResponseOf,
} from '@coffer/contracts';
import { Handles } from '@coffer/transport';
import type { z } from 'zod';
import { PasswordPolicyService } from './password-policy.service';

/** sys/policies/password/* and engines' generate calls (no logic). */
@Controller()
export class PasswordPolicyHandlers {
  constructor(private readonly policies: PasswordPolicyService) {}

  @Handles(c.list) list(): Promise<ResponseOf<typeof c.list>> {
    return this.policies.list();
  }
  @Handles(c.write) write(@Payload() req: RequestOf<typeof c.write>): Promise<ResponseOf<typeof c.write>> {
    return this.policies.write(req.params.name, req.body.policy);
  }
  @Handles(c.read) read(@Payload() req: RequestOf<typeof c.read>): Promise<ResponseOf<typeof c.read>> {
    return this.policies.read(req.params.name);
  }
  @Handles(c.delete) delete(
    @Payload() req: RequestOf<typeof c.delete>,
  ): Promise<ResponseOf<typeof c.delete>> {
    return this.policies.delete(req.params.name);
  }
  @Handles(c.generate) async generate(
    @Payload() req: RequestOf<typeof c.generate>,
  ): Promise<ResponseOf<typeof c.generate>> {
    return { data: await this.policies.generate(req.params.name) };
  }
  @Handles(corePasswordGenerate) engineGenerate(
    @Payload() req: z.output<typeof corePasswordGenerate.request>,
  ): Promise<{ password: string }> {
    return this.policies.generate(req.name);
  }
}
