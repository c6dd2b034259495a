import { Fault } from '../../protocol/faults.js';
import { RegistryConflictError, REQUEST_CAS_ATTEMPTS, retryOnConflict } from '../../registry/registry.js';

/**
 * A compare-and-set registry step, tried REQUEST_CAS_ATTEMPTS times (five let eight concurrent
 * TagResource calls on one ARN answer ConflictException, a fault AWS does not list for them); still
 * beaten, it answers ConflictException.
 */
export async function casRetry<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await retryOnConflict(step, REQUEST_CAS_ATTEMPTS);
  } catch (e) {
    if (e instanceof RegistryConflictError) throw new Fault('ConflictException', `State machine '${what}' changed concurrently`, { cause: e, retryable: true });
    throw e;
  }
}
