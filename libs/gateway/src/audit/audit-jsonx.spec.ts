import { deviceFormat, requestLine, type AuditedRequest } from './audit-entry';
import { encodeJsonx } from './audit-jsonx';

describe("Vault's jsonx audit format", () => {
  it('renders members sorted by name as JSONx elements, names escaped, values as they are', () => {
    expect(
      encodeJsonx({
        type: 'request',
        b: true,
        n: 3,
        z: null,
        list: ['x', 1, { k: 'v' }],
        'a<"b': 'c&d',
      }),
    ).toBe(
      '<json:string name="a&lt;&#34;b">c&d</json:string>' +
        '<json:boolean name="b">true</json:boolean>' +
        '<json:array name="list"><json:string>x</json:string><json:number>1</json:number>' +
        '<json:object><json:string name="k">v</json:string></json:object></json:array>' +
        '<json:number name="n">3</json:number>' +
        '<json:string name="type">request</json:string>' +
        '<json:null name="z" />',
    );
  });

  it('a jsonx device writes the entry as JSONx after its prefix, without a line break', () => {
    const req: AuditedRequest = {
      id: 'r1',
      time: new Date('2026-01-02T03:04:05.000Z'),
      operation: 'read',
      path: 'sys/mounts',
      namespace: '',
      policies: [],
      remoteAddress: '127.0.0.1',
      headers: {},
    };
    const line = requestLine(req, undefined, [], deviceFormat('salt', { format: 'jsonx', prefix: 'P:' }));
    expect(line).toBe(
      'P:<json:object name="request"><json:string name="id">r1</json:string>' +
        '<json:object name="namespace"><json:string name="id">root</json:string></json:object>' +
        '<json:string name="operation">read</json:string><json:string name="path">sys/mounts</json:string>' +
        '<json:string name="remote_address">127.0.0.1</json:string></json:object>' +
        '<json:string name="time">2026-01-02T03:04:05.000Z</json:string>' +
        '<json:string name="type">request</json:string>',
    );
  });
});
