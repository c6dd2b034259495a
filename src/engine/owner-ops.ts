/**
 * The operations that run on the owner of an execution's partition, by name, each with its payload
 * and result. The engine declares none: each execution kind adds its own to this interface (module
 * augmentation, in its `owner-ops.ts`), so `Router.call('start', …)` checks the payload and types
 * the result, and the engine stays below the kinds.
 */
export interface OwnerOps {}

export type OwnerOpName = keyof OwnerOps & string;
export type OwnerPayload<K extends OwnerOpName> = OwnerOps[K] extends (payload: infer P) => Promise<unknown> ? P : never;
export type OwnerResult<K extends OwnerOpName> = OwnerOps[K] extends (payload: never) => Promise<infer R> ? R : never;

/** Handlers for some of the owner operations (a kind registers its own on the router). */
export type OwnerHandlers = { [K in OwnerOpName]?: OwnerOps[K] };

/** An owner operation as a kind writes it, against its own host (`(owner, payload) => …`), seen from the router. */
export type BoundOp<F> = F extends (host: never, payload: infer P) => Promise<infer R> ? (payload: P) => Promise<R> : never;
