import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The account behind the local IAM + STS (aws-server.ts): users, groups, access keys and every
 * Query action the cloud-b engine calls, with IAM's refusals (DeleteConflict, LimitExceeded,
 * NoSuchEntity...). Answers are result elements, rendered as XML by the server.
 */

export const IAM_VERSION = '2010-05-08';
export const STS_VERSION = '2011-06-15';
const ACCOUNT = '123456789012';

export interface AwsUser {
  name: string;
  arn: string;
  path: string;
  boundary: string;
  tags: Record<string, string>;
  groups: Set<string>;
  attached: Set<string>;
  inline: Map<string, string>;
  keys: Map<string, string>;
}

export interface AwsGroup {
  attached: string[];
  inline: Map<string, string>;
}

export interface Fault {
  status: number;
  code: string;
  message: string;
}

export class AwsFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const enc = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

export type Xml = string | number | boolean | Xml[] | { [k: string]: Xml | undefined };

/** Query-protocol XML: objects are elements, arrays are `<member>` lists. */
export function xml(value: Xml): string {
  if (Array.isArray(value)) return value.map((v) => `<member>${xml(v)}</member>`).join('');
  if (typeof value === 'object')
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `<${k}>${xml(v as Xml)}</${k}>`)
      .join('');
  return enc(String(value));
}

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
export const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data).digest();
export const isoNoMs = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const newKeyId = (prefix: string): string => prefix + randomBytes(8).toString('hex').toUpperCase();
const newSecret = (): string => randomBytes(30).toString('base64').slice(0, 40);

/** Parameters of one list, `Prefix.member.N[.field]`, in order. */
function members(params: Record<string, string>, prefix: string, field?: string): string[] {
  const out: string[] = [];
  for (let i = 1; ; i++) {
    const v = params[`${prefix}.member.${i}${field ? `.${field}` : ''}`];
    if (v === undefined) return out;
    out.push(v);
  }
}

export interface AwsAccount {
  users: Map<string, AwsUser>;
  groups: Map<string, AwsGroup>;
  /** access key id → { secret, user (empty for STS keys) } */
  keys: Map<string, { secret: string; user: string }>;
  addKey(userName: string): { accessKeyId: string; secretAccessKey: string };
  /** The action's result element, or an AwsFault. */
  perform(service: 'iam' | 'sts', action: string, p: Record<string, string>, caller: string): Xml;
}

/** An account with its root user (no key yet: the server adds the first). */
export function createAwsAccount(rootUser: string): AwsAccount {
  const users = new Map<string, AwsUser>();
  const groups = new Map<string, AwsGroup>();
  const keys = new Map<string, { secret: string; user: string }>();
  const newUser = (name: string, path = '/'): AwsUser => {
    const user: AwsUser = {
      name,
      arn: `arn:aws:iam::${ACCOUNT}:user${path}${name}`,
      path,
      boundary: '',
      tags: {},
      groups: new Set(),
      attached: new Set(),
      inline: new Map(),
      keys: new Map(),
    };
    users.set(name, user);
    return user;
  };
  const addKey = (userName: string) => {
    const user = users.get(userName);
    if (!user) throw new AwsFault(404, 'NoSuchEntity', `The user with name ${userName} cannot be found.`);
    if (user.keys.size >= 2)
      throw new AwsFault(409, 'LimitExceeded', 'Cannot exceed quota for AccessKeysPerUser: 2');
    const accessKeyId = newKeyId('AKIA');
    const secretAccessKey = newSecret();
    user.keys.set(accessKeyId, secretAccessKey);
    keys.set(accessKeyId, { secret: secretAccessKey, user: userName });
    return { accessKeyId, secretAccessKey };
  };

  const userOf = (name: string | undefined): AwsUser => {
    const user = name === undefined ? undefined : users.get(name);
    if (!user) throw new AwsFault(404, 'NoSuchEntity', `The user with name ${name ?? ''} cannot be found.`);
    return user;
  };
  const groupOf = (name: string | undefined): AwsGroup => {
    const group = name === undefined ? undefined : groups.get(name);
    if (!group) throw new AwsFault(404, 'NoSuchEntity', `The group with name ${name ?? ''} cannot be found.`);
    return group;
  };
  const userXml = (u: AwsUser) => ({
    Path: u.path,
    UserName: u.name,
    UserId: `AIDA${sha256(u.name).slice(0, 16).toUpperCase()}`,
    Arn: u.arn,
    CreateDate: isoNoMs(new Date()),
  });
  const duration = (params: Record<string, string>, max: number): number => {
    const d = Number(params['DurationSeconds'] ?? 3600);
    if (!Number.isInteger(d) || d < 900 || d > max)
      throw new AwsFault(
        400,
        'ValidationError',
        `1 validation error detected: Value '${params['DurationSeconds']}' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and ${max}`,
      );
    return d;
  };
  const temporary = (seconds: number) => {
    const AccessKeyId = newKeyId('ASIA');
    const SecretAccessKey = newSecret();
    keys.set(AccessKeyId, { secret: SecretAccessKey, user: '' });
    return {
      AccessKeyId,
      SecretAccessKey,
      SessionToken: randomBytes(48).toString('base64'),
      Expiration: isoNoMs(new Date(Date.now() + seconds * 1000)),
    };
  };
  newUser(rootUser);

  /** The action's result element, or an AwsFault. */
  function perform(service: 'iam' | 'sts', action: string, p: Record<string, string>, caller: string): Xml {
    if (service === 'sts') {
      switch (action) {
        case 'GetCallerIdentity':
          return { Account: ACCOUNT, Arn: `arn:aws:iam::${ACCOUNT}:user/${caller}`, UserId: caller };
        case 'AssumeRole': {
          const arn = p['RoleArn'] ?? '';
          const m = /^arn:aws:iam::(\d{12}):role\/(.+)$/.exec(arn);
          if (!m) throw new AwsFault(400, 'ValidationError', `${arn} is invalid`);
          const session = p['RoleSessionName'] ?? '';
          if (!/^[\w+=,.@-]{2,64}$/.test(session))
            throw new AwsFault(
              400,
              'ValidationError',
              `Value '${session}' at 'roleSessionName' failed to satisfy constraint`,
            );
          const seconds = duration(p, 43200);
          return {
            Credentials: temporary(seconds),
            AssumedRoleUser: {
              AssumedRoleId: `AROA${sha256(arn).slice(0, 16).toUpperCase()}:${session}`,
              Arn: `arn:aws:sts::${m[1]}:assumed-role/${m[2]}/${session}`,
            },
          };
        }
        case 'GetFederationToken': {
          const name = p['Name'] ?? '';
          if (!/^[\w+=,.@-]{2,32}$/.test(name))
            throw new AwsFault(
              400,
              'ValidationError',
              `Value '${name}' at 'name' failed to satisfy constraint`,
            );
          const seconds = duration(p, 129600);
          return {
            Credentials: temporary(seconds),
            FederatedUser: {
              FederatedUserId: `${ACCOUNT}:${name}`,
              Arn: `arn:aws:sts::${ACCOUNT}:federated-user/${name}`,
            },
            PackedPolicySize: 6,
          };
        }
      }
      throw new AwsFault(
        400,
        'InvalidAction',
        `Could not find operation ${action} for version ${STS_VERSION}`,
      );
    }
    const UserName = p['UserName'];
    switch (action) {
      case 'CreateUser': {
        if (!UserName || !/^[\w+=,.@-]{1,64}$/.test(UserName))
          throw new AwsFault(
            400,
            'ValidationError',
            `Value '${UserName ?? ''}' at 'userName' failed to satisfy constraint`,
          );
        if (users.has(UserName))
          throw new AwsFault(409, 'EntityAlreadyExists', `User with name ${UserName} already exists.`);
        const user = newUser(UserName, p['Path'] ?? '/');
        user.boundary = p['PermissionsBoundary'] ?? '';
        const tagKeys = members(p, 'Tags', 'Key');
        const tagValues = members(p, 'Tags', 'Value');
        tagKeys.forEach((k, i) => (user.tags[k] = tagValues[i] ?? ''));
        return { User: userXml(user) };
      }
      case 'GetUser':
        return { User: userXml(userOf(UserName ?? caller)) };
      case 'AttachUserPolicy': {
        const arn = p['PolicyArn'] ?? '';
        if (!arn.startsWith('arn:')) throw new AwsFault(400, 'InvalidInput', `ARN ${arn} is not valid.`);
        userOf(UserName).attached.add(arn);
        return {};
      }
      case 'PutUserPolicy': {
        const doc = p['PolicyDocument'] ?? '';
        try {
          JSON.parse(doc);
        } catch {
          throw new AwsFault(400, 'MalformedPolicyDocument', 'Syntax errors in policy.');
        }
        userOf(UserName).inline.set(p['PolicyName'] ?? '', doc);
        return {};
      }
      case 'AddUserToGroup':
        groupOf(p['GroupName']);
        userOf(UserName).groups.add(p['GroupName'] ?? '');
        return {};
      case 'RemoveUserFromGroup': {
        const user = userOf(UserName);
        if (!user.groups.delete(p['GroupName'] ?? ''))
          throw new AwsFault(404, 'NoSuchEntity', `User ${user.name} is not in group ${p['GroupName']}.`);
        return {};
      }
      case 'CreateAccessKey': {
        const { accessKeyId, secretAccessKey } = addKey(UserName ?? caller);
        return {
          AccessKey: {
            UserName: UserName ?? caller,
            AccessKeyId: accessKeyId,
            Status: 'Active',
            SecretAccessKey: secretAccessKey,
            CreateDate: isoNoMs(new Date()),
          },
        };
      }
      case 'ListAccessKeys': {
        const user = userOf(UserName ?? caller);
        return {
          AccessKeyMetadata: [...user.keys.keys()].map((id) => ({
            UserName: user.name,
            AccessKeyId: id,
            Status: 'Active',
          })),
          IsTruncated: false,
        };
      }
      case 'DeleteAccessKey': {
        const user = userOf(UserName ?? caller);
        const id = p['AccessKeyId'] ?? '';
        if (!user.keys.delete(id))
          throw new AwsFault(404, 'NoSuchEntity', `The Access Key with id ${id} cannot be found.`);
        keys.delete(id);
        return {};
      }
      case 'ListGroupsForUser':
        return {
          Groups: [...userOf(UserName).groups].map((g) => ({
            GroupName: g,
            Path: '/',
            Arn: `arn:aws:iam::${ACCOUNT}:group/${g}`,
          })),
          IsTruncated: false,
        };
      case 'ListAttachedUserPolicies':
        return {
          AttachedPolicies: [...userOf(UserName).attached].map((arn) => ({
            PolicyArn: arn,
            PolicyName: arn.split('/').pop() ?? '',
          })),
          IsTruncated: false,
        };
      case 'DetachUserPolicy': {
        const user = userOf(UserName);
        if (!user.attached.delete(p['PolicyArn'] ?? ''))
          throw new AwsFault(404, 'NoSuchEntity', `Policy ${p['PolicyArn']} was not found.`);
        return {};
      }
      case 'ListUserPolicies':
        return { PolicyNames: [...userOf(UserName).inline.keys()], IsTruncated: false };
      case 'DeleteUserPolicy': {
        const user = userOf(UserName);
        if (!user.inline.delete(p['PolicyName'] ?? ''))
          throw new AwsFault(
            404,
            'NoSuchEntity',
            `The user policy with name ${p['PolicyName']} cannot be found.`,
          );
        return {};
      }
      case 'DeleteUser': {
        const user = userOf(UserName);
        if (user.keys.size + user.attached.size + user.inline.size + user.groups.size > 0)
          throw new AwsFault(
            409,
            'DeleteConflict',
            'Cannot delete entity, must delete access keys, policies and groups first.',
          );
        users.delete(user.name);
        return {};
      }
      case 'ListAttachedGroupPolicies':
        return {
          AttachedPolicies: groupOf(p['GroupName']).attached.map((arn) => ({
            PolicyArn: arn,
            PolicyName: arn.split('/').pop() ?? '',
          })),
          IsTruncated: false,
        };
      case 'ListGroupPolicies':
        return { PolicyNames: [...groupOf(p['GroupName']).inline.keys()], IsTruncated: false };
      case 'GetGroupPolicy': {
        const doc = groupOf(p['GroupName']).inline.get(p['PolicyName'] ?? '');
        if (doc === undefined)
          throw new AwsFault(404, 'NoSuchEntity', `The group policy ${p['PolicyName']} cannot be found.`);
        return {
          GroupName: p['GroupName'] ?? '',
          PolicyName: p['PolicyName'] ?? '',
          PolicyDocument: encodeURIComponent(doc),
        };
      }
    }
    throw new AwsFault(400, 'InvalidAction', `Could not find operation ${action} for version ${IAM_VERSION}`);
  }

  return { users, groups, keys, addKey, perform };
}
