import {
  AddUserToGroupCommand,
  AttachUserPolicyCommand,
  CreateAccessKeyCommand,
  CreateUserCommand,
  DeleteAccessKeyCommand,
  DeleteUserCommand,
  DeleteUserPolicyCommand,
  DetachUserPolicyCommand,
  GetGroupPolicyCommand,
  ListAccessKeysCommand,
  ListAttachedGroupPoliciesCommand,
  ListAttachedUserPoliciesCommand,
  ListGroupPoliciesCommand,
  ListGroupsForUserCommand,
  ListUserPoliciesCommand,
  PutUserPolicyCommand,
  RemoveUserFromGroupCommand,
  type IAMClient,
} from '@aws-sdk/client-iam';
import type { RoleEntry } from '../records/cloud-b-record.events';
import { isNoSuchEntity, upstream } from './cloud-b-clients';

type Signal = { abortSignal?: AbortSignal };

/** What CreateAccessKey gave, and the user's ARN. */
export interface IssuedUser {
  access_key: string;
  secret_key: string;
  arn: string;
}

/**
 * Creates the IAM user of an iam_user credential (secretAccessKeysCreate): the user (path,
 * permissions boundary, tags), its managed policies, its inline policy (named after the role),
 * its groups, then an access key. The caller removes the user with `deleteIamUser` on failure.
 */
export async function createIamUser(
  iam: IAMClient,
  userName: string,
  roleName: string,
  role: RoleEntry,
  opts: Signal,
): Promise<IssuedUser> {
  let arn = '';
  try {
    const tags = Object.entries(role.iam_tags ?? {}).map(([Key, Value]) => ({ Key, Value }));
    const created = await iam.send(
      new CreateUserCommand({
        UserName: userName,
        Path: role.user_path || '/',
        ...(role.permissions_boundary_arn ? { PermissionsBoundary: role.permissions_boundary_arn } : {}),
        ...(tags.length > 0 ? { Tags: tags } : {}),
      }),
      opts,
    );
    arn = created.User?.Arn ?? '';
  } catch (error) {
    throw upstream('Error creating IAM user', error);
  }
  for (const policyArn of role.policy_arns ?? []) {
    await iam
      .send(new AttachUserPolicyCommand({ UserName: userName, PolicyArn: policyArn }), opts)
      .catch((error: unknown) => {
        throw upstream('Error attaching user policy', error);
      });
  }
  if (role.policy_document !== '') {
    await iam
      .send(
        new PutUserPolicyCommand({
          UserName: userName,
          PolicyName: roleName,
          PolicyDocument: role.policy_document,
        }),
        opts,
      )
      .catch((error: unknown) => {
        throw upstream('Error putting user policy', error);
      });
  }
  for (const group of role.iam_groups ?? []) {
    await iam
      .send(new AddUserToGroupCommand({ GroupName: group, UserName: userName }), opts)
      .catch((error: unknown) => {
        throw upstream('Error adding user to group', error);
      });
  }
  try {
    const key = await iam.send(new CreateAccessKeyCommand({ UserName: userName }), opts);
    const access = key.AccessKey;
    if (!access?.AccessKeyId || !access.SecretAccessKey) throw new Error('CreateAccessKey answered no key');
    return { access_key: access.AccessKeyId, secret_key: access.SecretAccessKey, arn };
  } catch (error) {
    throw upstream('Error creating access keys', error);
  }
}

/**
 * Removes an IAM user with everything attached to it (pathUserRollback): group memberships,
 * managed and inline policies, access keys, the user. Idempotent: a user already gone is done.
 */
export async function deleteIamUser(iam: IAMClient, userName: string, opts: Signal): Promise<void> {
  const step = async <T>(context: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (error) {
      if (isNoSuchEntity(error)) return undefined;
      throw upstream(context, error);
    }
  };
  const UserName = userName;
  const groups = await step('Error listing the groups of the IAM user', () =>
    iam.send(new ListGroupsForUserCommand({ UserName }), opts),
  );
  if (groups === undefined) return; // no such user
  for (const group of groups.Groups ?? [])
    await step('Error removing the IAM user from a group', () =>
      iam.send(new RemoveUserFromGroupCommand({ UserName, GroupName: group.GroupName }), opts),
    );
  const attached = await step('Error listing the policies of the IAM user', () =>
    iam.send(new ListAttachedUserPoliciesCommand({ UserName }), opts),
  );
  for (const policy of attached?.AttachedPolicies ?? [])
    await step('Error detaching a policy of the IAM user', () =>
      iam.send(new DetachUserPolicyCommand({ UserName, PolicyArn: policy.PolicyArn }), opts),
    );
  const inline = await step('Error listing the inline policies of the IAM user', () =>
    iam.send(new ListUserPoliciesCommand({ UserName }), opts),
  );
  for (const PolicyName of inline?.PolicyNames ?? [])
    await step('Error deleting an inline policy of the IAM user', () =>
      iam.send(new DeleteUserPolicyCommand({ UserName, PolicyName }), opts),
    );
  const keys = await step('Error listing the access keys of the IAM user', () =>
    iam.send(new ListAccessKeysCommand({ UserName }), opts),
  );
  for (const key of keys?.AccessKeyMetadata ?? [])
    await step('Error deleting an access key of the IAM user', () =>
      iam.send(new DeleteAccessKeyCommand({ UserName, AccessKeyId: key.AccessKeyId }), opts),
    );
  await step('Error deleting the IAM user', () => iam.send(new DeleteUserCommand({ UserName }), opts));
}

/**
 * The policies of IAM groups, for STS credentials (Vault's getGroupPolicies): their managed
 * policy ARNs and their inline policy documents.
 */
export async function groupPolicies(
  iam: IAMClient,
  groups: readonly string[],
  opts: Signal,
): Promise<{ arns: string[]; documents: string[] }> {
  const arns: string[] = [];
  const documents: string[] = [];
  try {
    for (const GroupName of groups) {
      const attached = await iam.send(new ListAttachedGroupPoliciesCommand({ GroupName }), opts);
      for (const p of attached.AttachedPolicies ?? []) if (p.PolicyArn) arns.push(p.PolicyArn);
      const inline = await iam.send(new ListGroupPoliciesCommand({ GroupName }), opts);
      for (const PolicyName of inline.PolicyNames ?? []) {
        const doc = await iam.send(new GetGroupPolicyCommand({ GroupName, PolicyName }), opts);
        if (doc.PolicyDocument) documents.push(decodeURIComponent(doc.PolicyDocument));
      }
    }
  } catch (error) {
    throw upstream('Error reading the policies of the IAM groups', error);
  }
  return { arns, documents };
}

/** Vault's combinePolicyDocuments: every statement of every document in one policy. */
export function combinePolicyDocuments(documents: readonly string[]): string {
  const statements: unknown[] = [];
  for (const text of documents) {
    if (text === '') continue;
    const doc = JSON.parse(text) as { Statement?: unknown };
    if (Array.isArray(doc.Statement)) statements.push(...(doc.Statement as unknown[]));
    else if (doc.Statement !== undefined) statements.push(doc.Statement);
  }
  return statements.length === 0 ? '' : JSON.stringify({ Version: '2012-10-17', Statement: statements });
}
