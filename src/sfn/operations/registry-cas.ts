import { Fault } from '../../protocol/faults.js';
import { RegistryConflictError, retryOnConflict } from '../../registry/registry.js';

/** Attempts at a compare-and-set registry write before answering ConflictException. */
const CAS_ATTEMPTS = 5;

/** A compare-and-set registry step, tried CAS_ATTEMPTS times; still beaten, it answers ConflictException. */
export async function casRetry<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await retryOnConflict(step, CAS_ATTEMPTS);
  } catch (e) {
    if (e instanceof RegistryConflictError) throw new Fault('ConflictException', `State machine '${what}' changed concurrently`, { cause: e, retryable: true });
    throw e;
  }
}
