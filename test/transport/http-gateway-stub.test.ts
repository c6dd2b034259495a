import { connect } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fault } from '../../src/protocol/faults.js';
import type { Operation, ServiceContext } from '../../src/service/context.js';
import { startHttpGateway, type HttpGateway } from '../../src/transport/http-gateway.js';
import { resolveHttpOptions } from '../../src/transport/http-options.js';
import { rawCall } from '../helpers/swf-http.js';
import { until } from '../helpers/until.js';

// The gateway over a stub operation table: what the service layer cannot easily be made to do.
let aborted = 0;
const ops: Record<string, Operation> = {
  Boom: async () => { throw new Error('secret internals'); },
  Internal: async () => { throw new Fault('InternalFailure', 'store unavailable'); },
  Throttled: async () => { throw new Fault('ThrottlingException', 'slow down'); },
  Echo: async (_ctx, input) => input,
  Hold: (_ctx, _input, signal) => new Promise((resolve) => {
    signal!.addEventListener('abort', () => { aborted++; resolve({}); });
  }),
};
let gw: HttpGateway;
const call = (target: string, body = '{}', signal?: AbortSignal) => rawCall(gw.port, { target: `SimpleWorkflowService.${target}`, body, signal });

beforeAll(async () => {
  gw = await startHttpGateway({} as ServiceContext, { SimpleWorkflowService: { ops, signingName: 'swf' } },
    resolveHttpOptions({ port: 0, accessKeys: {} }, {}), pino({ level: 'silent' }));
});
afterAll(async () => { await gw?.drain(100); });

describe('HTTP gateway over a stub operation table', () => {
  it('answers our own failures with 500 InternalFailure and hides their details', async () => {
    const boom = await call('Boom');
    expect([boom.status, boom.json]).toEqual([500, { __type: 'InternalFailure', message: 'internal error' }]);
    const internal = await call('Internal');
    expect([internal.status, internal.json.__type]).toEqual([500, 'InternalFailure']);
    const throttled = await call('Throttled');
    expect([throttled.status, throttled.json.__type]).toEqual([400, 'ThrottlingException']);
  });

  it('passes the parsed body through and answers {} for an empty result', async () => {
    const echo = await call('Echo', '{"a":[1,{"b":"c"}],"__proto__":{"x":1}}');
    expect(echo.status).toBe(200);
    expect(echo.json).toEqual(JSON.parse('{"a":[1,{"b":"c"}],"__proto__":{"x":1}}'));
  });

  it('aborts the operation\'s signal when the client goes away before the answer', async () => {
    const gone = new AbortController();
    const held = call('Hold', '{}', gone.signal).catch((e: unknown) => e);
    await until(() => gw.inflightRequests === 1);
    gone.abort();
    expect(await held).toMatchObject({ name: 'AbortError' });
    await until(() => aborted === 1 && gw.inflightRequests === 0);
  });

  it('answers bytes that are not HTTP with a JSON 400 and closes the connection', async () => {
    const text = await new Promise<string>((resolve) => {
      const socket = connect(gw.port, '127.0.0.1');
      let got = '';
      socket.on('data', (d) => { got += d.toString(); });
      socket.on('close', () => resolve(got));
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(text.split('\r\n\r\n')[1]!)).toMatchObject({ __type: 'SerializationException' });
  });

  it('refuses new connections while draining and cuts requests still held at the deadline', async () => {
    const held = call('Hold');
    await until(() => gw.inflightRequests === 1);
    const draining = gw.drain(300);
    const refused = await call('Echo').catch((e: unknown) => e);
    // A new connection is refused outright; the drain then cuts the held request.
    expect(refused).toBeInstanceOf(TypeError);
    await draining;
    expect(await held.catch((e: unknown) => e)).toBeInstanceOf(TypeError);
  });
});
