import { Injectable } from '@nestjs/common';
import { DomainError, invalidRequest, notFound } from '@coffer/contracts';
import { PasswordPolicyEventLog } from './password-policy.projection';
import { PasswordPolicyRepository } from './password-policy.repository';
import {
  decodePolicyText,
  generateFromPolicy,
  parsePasswordPolicy,
  validatePolicyText,
} from './password-policy.rules';

/** sys/policies/password: write (validated by trial generation), read, list, delete, generate. */
@Injectable()
export class PasswordPolicyService {
  constructor(
    private readonly repo: PasswordPolicyRepository,
    private readonly log: PasswordPolicyEventLog,
  ) {}

  async list(): Promise<{ data: { keys: string[] } }> {
    const keys = await this.repo.names();
    if (keys.length === 0) throw notFound();
    return { data: { keys } };
  }

  async write(name: string, raw: string): Promise<{ status: number }> {
    if (name === '') throw invalidRequest('missing policy name');
    if (raw === '') throw invalidRequest('missing policy');
    const text = decodePolicyText(raw);
    const problem = validatePolicyText(text);
    if (problem) throw invalidRequest(problem);
    await this.log.append(name, 'any', [{ type: 'PasswordPolicyWritten', data: { name, policy: text } }]);
    return { status: 204 };
  }

  async read(name: string): Promise<{ data: { policy: string } }> {
    const policy = await this.repo.text(name);
    if (policy === undefined) throw new DomainError('not_found', 'policy does not exist');
    return { data: { policy } };
  }

  async delete(name: string): Promise<Record<string, never>> {
    if (name === '') throw invalidRequest('missing policy name');
    if ((await this.repo.text(name)) !== undefined)
      await this.log.append(name, 'any', [{ type: 'PasswordPolicyDeleted', data: { name } }]);
    return {};
  }

  async generate(name: string): Promise<{ password: string }> {
    const text = await this.repo.text(name);
    if (text === undefined) throw new DomainError('not_found', 'policy does not exist');
    try {
      return { password: generateFromPolicy(parsePasswordPolicy(text)) };
    } catch (error) {
      throw new DomainError(
        'internal',
        `failed to generate password from policy: ${error instanceof Error ? error.message : ''}`,
      );
    }
  }
}
