import { describe, expect, it } from 'vitest';
import type { Integration } from '../../src/sfn/integrations/integration.js';
import { knownServiceResource } from '../../src/sfn/integrations/known.js';
import { IntegrationRegistry } from '../../src/sfn/integrations/registry.js';

const natsLike = (actions: Integration['actions']): Integration => ({
  resourceType: 'nats', actions, invoke: async () => ({ ok: true, output: {} }),
});

describe('the service integration table and registry', () => {
  it('reads the resources the table lists, under their own partition only', () => {
    expect(knownServiceResource('arn:actorflow:states:::nats:publish.waitForTaskToken'))
      .toEqual({ resourceType: 'nats', resource: 'publish.waitForTaskToken', action: 'publish', pattern: 'waitForTaskToken' });
    expect(knownServiceResource('arn:aws:states:::states:startExecution.sync:2'))
      .toEqual({ resourceType: 'states', resource: 'startExecution.sync:2', action: 'startExecution', pattern: 'sync:2' });
    expect(knownServiceResource('arn:aws:states:::nats:publish')).toBeUndefined();
    expect(knownServiceResource('arn:actorflow:states:::lambda:invoke')).toBeUndefined();
    expect(knownServiceResource('arn:aws:states:::http:invoke.sync')).toBeUndefined();
    expect(knownServiceResource('arn:aws:states:::sqs:sendMessage')).toBeUndefined();
    expect(knownServiceResource('arn:aws:states:::lambda:toString')).toBeUndefined();
  });

  it('serves a registered integration and refuses one the table does not list', () => {
    const reg = new IntegrationRegistry().register(natsLike({ publish: ['request'] }));
    expect(reg.find('nats')?.resourceType).toBe('nats');
    expect(reg.resolve('arn:actorflow:states:::nats:publish')?.service.action).toBe('publish');
    // Listed in the table but not served by this registration.
    expect(reg.resolve('arn:actorflow:states:::nats:publish.waitForTaskToken')).toBeUndefined();
    expect(reg.resolve('arn:aws:states:::lambda:invoke')).toBeUndefined();
    expect(() => reg.register(natsLike({ publish: ['request'] }))).toThrow(/registered already/);
    expect(() => new IntegrationRegistry().register(natsLike({ publish: ['sync'] }))).toThrow(/does not list/);
    expect(() => new IntegrationRegistry().register(natsLike({ request: ['request'] }))).toThrow(/does not list/);
  });
});
