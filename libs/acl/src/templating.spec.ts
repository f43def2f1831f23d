import type { EntityFacts } from '@coffer/contracts';
import { checkTemplate, globbedStringsMatch, populateTemplate } from './index';

const entity: EntityFacts = {
  id: 'e-1',
  name: 'bob',
  metadata: { region: 'eu', blank: '' },
  aliases: [{ mount_accessor: 'auth_userpass_1', name: 'bob-up' }],
  groups: [
    { id: 'g-1', name: 'ops' },
    { id: 'g-2', name: '' },
  ],
};
const now = new Date('2024-01-01T00:00:00Z');
const fill = (s: string, e: EntityFacts | null = entity) => populateTemplate(s, { entity: e, now });

describe('checkTemplate', () => {
  it.each([
    ['plain/path', false, undefined],
    ['a/{{identity.entity.id}}/b', true, undefined],
    ['a/{{x}}{{y}}', true, undefined],
    ['a/}}', false, 'unbalanced templating characters'],
    ['a/{{x', true, 'unbalanced templating characters'],
    ['a/{{x}}}}', true, 'unbalanced templating characters'],
  ])('%s', (s, templated, error) => {
    expect(checkTemplate(s)).toEqual(error ? { templated, error } : { templated });
  });
});

describe('populateTemplate', () => {
  it.each([
    ['u/{{identity.entity.id}}', 'u/e-1'],
    ['u/{{ identity.entity.name }}/x', 'u/bob/x'],
    ['u/{{identity.entity.metadata.region}}', 'u/eu'],
    ['u/{{identity.entity.metadata.blank}}/x', 'u//x'],
    ['u/{{identity.entity.aliases.auth_userpass_1.name}}', 'u/bob-up'],
    ['u/{{identity.groups.ids.g-1.name}}', 'u/ops'],
    ['u/{{identity.groups.names.ops.id}}', 'u/g-1'],
    ['u/{{identity.groups.ids.g-1.id}}', 'u/g-1'],
    ['t/{{time.now}}', `t/${now.getTime() / 1000}`],
    ['t/{{time.now.minus.1d}}', `t/${now.getTime() / 1000 - 86400}`],
    ['no/templates', 'no/templates'],
  ])('%s -> %s', (s, expected) => {
    expect(fill(s)).toMatchObject({ ok: true, value: expected });
  });

  it.each([
    ['u/{{identity.entity.metadata.missing}}', 'no value could be found for one of the template directives'],
    ['u/{{identity.entity.metadata}}', 'no value could be found for one of the template directives'],
    ['u/{{identity.entity.groups.names}}', 'no value could be found for one of the template directives'],
    ['u/{{identity.entity.aliases.other.name}}', 'alias not found'],
    [
      'u/{{identity.entity.aliases.auth_userpass_1.id}}',
      'no value could be found for one of the template directives',
    ],
    ['u/{{identity.entity.aliases.nodot}}', 'invalid alias selector'],
    ['u/{{identity.groups.ids.g-9.name}}', 'entity is not a member of group "g-9"'],
    ['u/{{identity.groups.ids.g-2.name}}', 'no value could be found for one of the template directives'],
    ['u/{{identity.groups.bogus.x.id}}', 'invalid groups selector'],
    ['u/{{identity.groups.ids.g-1}}', 'invalid groups accessor'],
    ['u/{{unknown.thing}}', 'no value could be found for one of the template directives'],
    ['t/{{time.later}}', 'invalid time selector "later"'],
    ['t/{{time.now.plus}}', 'missing time operand'],
    ['t/{{time.now.times.1h}}', 'invalid time operator "times"'],
    ['t/{{time.now.plus.soon}}', 'invalid duration: time: invalid duration "soon"'],
  ])('%s fails: %s', (s, error) => {
    expect(fill(s)).toEqual({ ok: false, error });
  });

  it('needs an entity for entity and group directives', () => {
    expect(fill('u/{{identity.entity.id}}', null)).toEqual({
      ok: false,
      error: 'string contains entity template directives but no entity was provided',
    });
    expect(fill('u/{{identity.groups.ids.g-1.name}}', { ...entity, groups: [] })).toEqual({
      ok: false,
      error: 'string contains groups template directives but no groups were provided',
    });
  });

  it('refuses wildcards in the output', () => {
    expect(fill('u/{{identity.entity.name}}', { ...entity, name: 'a+b' })).toEqual({
      ok: false,
      error: 'globs and wildcards are not allowed in template result',
    });
  });
});

describe('populateTemplate in JSON mode (OIDC scope templates)', () => {
  const json = (s: string, e: EntityFacts | null = entity) =>
    populateTemplate(s, { entity: e, now, mode: 'json' });

  it.each([
    ['{"id": {{identity.entity.id}}}', { id: 'e-1' }],
    ['{"n": {{identity.entity.name}}, "r": {{identity.entity.metadata.region}}}', { n: 'bob', r: 'eu' }],
    ['{"m": {{identity.entity.metadata}}}', { m: { region: 'eu', blank: '' } }],
    ['{"missing": {{identity.entity.metadata.none}}}', { missing: '' }],
    [
      '{"g": {{identity.entity.groups.names}}, "i": {{identity.entity.groups.ids}}}',
      { g: ['ops', ''], i: ['g-1', 'g-2'] },
    ],
    ['{"a": {{identity.entity.aliases.auth_userpass_1.name}}}', { a: 'bob-up' }],
    [
      '{"a": {{identity.entity.aliases.unknown.name}}, "m": {{identity.entity.aliases.x.metadata}}}',
      { a: '', m: {} },
    ],
    ['{"t": {{time.now}}}', { t: now.getTime() / 1000 }],
  ])('%s', (template, claims) => {
    const result = json(template);
    expect(result.ok).toBe(true);
    if (result.ok) expect(JSON.parse(result.value)).toEqual(claims);
  });

  it('escapes what the values contain, so a value cannot add claims', () => {
    const result = json('{"n": {{identity.entity.name}}}', { ...entity, name: 'x", "admin": "true' });
    expect(result.ok && JSON.parse(result.value)).toEqual({ n: 'x", "admin": "true' });
  });

  it('keeps the errors of ACL mode for what cannot be resolved', () => {
    expect(json('{"x": {{identity.entity.nope}}}')).toEqual({
      ok: false,
      error: 'no value could be found for one of the template directives',
    });
    expect(json('{"x": {{identity.entity.id}')).toEqual({
      ok: false,
      error: 'unbalanced templating characters',
    });
  });
});

describe('globbedStringsMatch', () => {
  it.each([
    ['*', '*', true],
    ['*', 'anything', false],
    ['a', 'a', true],
    ['ab*', 'abc', true],
    ['ab*', 'xab', false],
    ['*ab', 'xab', true],
    ['*ab*', 'xaby', true],
    ['*ab*', 'xay', false],
    ['exact', 'exact', true],
  ])('%s vs %s', (item, val, expected) => {
    expect(globbedStringsMatch(item, val)).toBe(expected);
  });
});
