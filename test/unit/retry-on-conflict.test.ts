import { describe, expect, it } from 'vitest';
import { RegistryConflictError, retryOnConflict } from '../../src/registry/registry.js';

describe('retryOnConflict', () => {
  it('runs a step again while another writer wins, then returns its result', async () => {
    let n = 0;
    expect(await retryOnConflict(async () => { if (++n < 4) throw new RegistryConflictError('k'); return n; }, 5)).toBe(4);
  });

  it('throws the last conflict once the tries are spent', async () => {
    let n = 0;
    await expect(retryOnConflict(async () => { n++; throw new RegistryConflictError('k'); }, 5)).rejects.toBeInstanceOf(RegistryConflictError);
    expect(n).toBe(5);
  });

  it('throws any other failure at once', async () => {
    let n = 0;
    await expect(retryOnConflict(async () => { n++; throw new Error('bucket gone'); })).rejects.toThrow('bucket gone');
    expect(n).toBe(1);
  });

  it('without a bound keeps going until the step goes through', async () => {
    let n = 0;
    expect(await retryOnConflict(async () => { if (++n < 30) throw new RegistryConflictError('k'); return 'done'; })).toBe('done');
    expect(n).toBe(30);
  });
});
