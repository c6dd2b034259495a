import { describe, expect, it } from 'vitest';
import { SigV4Failure, signSigV4, verifySigV4, type SignableRequest } from '../../src/transport/sigv4.js';

// The AWS SigV4 test suite's example credentials and clock (aws-sig-v4-test-suite).
const KEYS = new Map([['AKIDEXAMPLE', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY']]);
const NOW = Date.UTC(2015, 7, 30, 12, 36, 0);
const auth = (sig: string) => `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${sig}`;

function vanilla(query: string, authorization: string): SignableRequest {
  return {
    method: 'GET', path: '/', query, body: new Uint8Array(),
    headers: { host: ['example.amazonaws.com'], 'x-amz-date': ['20150830T123600Z'], authorization: [authorization] },
  };
}

function failure(f: () => unknown): SigV4Failure {
  try { f(); } catch (e) { if (e instanceof SigV4Failure) return e; throw e; }
  throw new Error('expected a SigV4Failure');
}

describe('SigV4 verification', () => {
  it('accepts the AWS test suite vectors get-vanilla and get-vanilla-query-order-key-case', () => {
    const opts = { now: NOW, region: 'us-east-1', services: ['service'] };
    expect(verifySigV4(vanilla('', auth('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31')), KEYS, opts))
      .toEqual({ accessKeyId: 'AKIDEXAMPLE', region: 'us-east-1', service: 'service' });
    expect(verifySigV4(vanilla('Param2=value2&Param1=value1', auth('b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500')), KEYS, opts).accessKeyId)
      .toBe('AKIDEXAMPLE');
  });

  it('names each failure as AWS JSON services do', () => {
    const opts = { now: NOW, region: 'us-east-1', services: ['service'] };
    const good = auth('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
    const withHeaders = (h: Record<string, string[]>) => ({ ...vanilla('', good), headers: { ...vanilla('', good).headers, ...h } });
    expect(failure(() => verifySigV4({ ...vanilla('', ''), headers: { host: ['x'] } }, KEYS, opts)).name).toBe('MissingAuthenticationTokenException');
    expect(failure(() => verifySigV4(vanilla('', 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE'), KEYS, opts)).name).toBe('IncompleteSignatureException');
    expect(failure(() => verifySigV4(vanilla('', 'Basic dXNlcjpwYXNz'), KEYS, opts)).name).toBe('IncompleteSignatureException');
    expect(failure(() => verifySigV4(withHeaders({ 'x-amz-date': ['2015-08-30'] }), KEYS, opts)).name).toBe('IncompleteSignatureException');
    expect(failure(() => verifySigV4(vanilla('', good.replace('AKIDEXAMPLE', 'AKIDOTHER')), KEYS, opts)).name).toBe('UnrecognizedClientException');
    expect(failure(() => verifySigV4(vanilla('x=1', good), KEYS, opts)).name).toBe('InvalidSignatureException');
    expect(failure(() => verifySigV4(vanilla('', good), KEYS, { ...opts, services: ['swf'] })).message).toMatch(/scoped to correct service/);
    const late = failure(() => verifySigV4(vanilla('', good), KEYS, { ...opts, now: NOW + 16 * 60_000 }));
    expect([late.name, late.message]).toEqual(['InvalidSignatureException', expect.stringMatching(/^Signature expired: 20150830T123600Z is now earlier than/)]);
    const early = failure(() => verifySigV4(vanilla('', good), KEYS, { ...opts, now: NOW - 16 * 60_000 }));
    expect([early.name, early.message]).toEqual(['InvalidSignatureException', expect.stringMatching(/^Signature not yet current/)]);
    expect(verifySigV4(vanilla('', good), KEYS, { ...opts, now: NOW + 14 * 60_000 }).accessKeyId).toBe('AKIDEXAMPLE');
  });

  it('checks a claimed payload hash against the body, and what it signs verifies', () => {
    const body = Buffer.from('{"name":"d"}');
    const headers = { host: ['h:1'], 'content-type': ['application/x-amz-json-1.0'], 'x-amz-target': ['SimpleWorkflowService.DescribeDomain'] };
    const req = { method: 'POST', path: '/', query: '', headers, body };
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: KEYS.get('AKIDEXAMPLE')! };
    const added = signSigV4(req, creds, { region: 'eu-west-1', service: 'swf', now: NOW });
    const signed = { ...req, headers: { ...headers, ...Object.fromEntries(Object.entries(added).map(([k, v]) => [k, [v]])) } };
    expect(verifySigV4(signed, KEYS, { now: NOW, region: 'eu-west-1', services: ['swf'] }).region).toBe('eu-west-1');
    expect(failure(() => verifySigV4({ ...signed, body: Buffer.from('{"name":"e"}') }, KEYS, { now: NOW, region: 'eu-west-1', services: ['swf'] })).message).toMatch(/x-amz-content-sha256/);
    const withoutHash: Record<string, string[]> = { ...signed.headers };
    delete withoutHash['x-amz-content-sha256'];
    expect(failure(() => verifySigV4({ ...signed, headers: withoutHash }, KEYS, { now: NOW, region: 'eu-west-1', services: ['swf'] })).name).toBe('InvalidSignatureException');
  });

  it('refuses a scope of another region, and a request with host, content-type or any x-amz-* header unsigned', () => {
    const headers = { host: ['h:1'], 'content-type': ['application/x-amz-json-1.0'], 'x-amz-target': ['SimpleWorkflowService.SignalWorkflowExecution'] };
    const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: KEYS.get('AKIDEXAMPLE')! };
    const opts = { now: NOW, region: 'eu-west-1', services: ['swf'] };
    const signedWith = (signedHeaders: Record<string, string[]>, sent: Record<string, string[]> = {}, region = 'eu-west-1') => {
      const req = { method: 'POST', path: '/', query: '', headers: signedHeaders, body: Buffer.from('{}') };
      const added = signSigV4(req, creds, { region, service: 'swf', now: NOW });
      return { ...req, headers: { ...signedHeaders, ...sent, ...Object.fromEntries(Object.entries(added).map(([k, v]) => [k, [v]])) } };
    };
    expect(verifySigV4(signedWith(headers), KEYS, opts).accessKeyId).toBe('AKIDEXAMPLE');
    const region = failure(() => verifySigV4(signedWith(headers, {}, 'us-west-2'), KEYS, opts));
    expect([region.name, region.message]).toEqual(['InvalidSignatureException', "Credential should be scoped to a valid region, not 'us-west-2'."]);
    const { 'x-amz-target': target, ...noTarget } = headers;
    const { host, ...noHost } = headers;
    const { 'content-type': type, ...noType } = headers;
    const cases: [Record<string, string[]>, Record<string, string[]>, string][] = [
      [noTarget, { 'x-amz-target': target }, "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization."],
      [noHost, { host }, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."],
      [noType, { 'content-type': type }, "'Content-Type' must be a 'SignedHeader' in the AWS Authorization."],
      [headers, { 'x-amz-security-token': ['t'] }, "'X-Amz-Security-Token' must be a 'SignedHeader' in the AWS Authorization."],
    ];
    for (const [signed, sent, message] of cases) {
      const f = failure(() => verifySigV4(signedWith(signed, sent), KEYS, opts));
      expect([f.name, f.message]).toEqual(['InvalidSignatureException', message]);
    }
    // Other unsigned headers (user-agent, amz-sdk-*) are left alone, as the SDKs do not sign them all.
    expect(verifySigV4(signedWith(headers, { 'user-agent': ['sdk'], 'amz-sdk-request': ['attempt=1'] }), KEYS, opts).accessKeyId).toBe('AKIDEXAMPLE');
  });
});
