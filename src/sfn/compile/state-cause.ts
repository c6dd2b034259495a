/**
 * AWS words a runtime failure of a state as `An error occurred while executing the state 'X'
 * (entered at the event id #N). <what went wrong>`. A graph's step knows the id its state's
 * `<Type>StateEntered` gets (the host numbers the events in the order they are recorded), and
 * writes the sentence itself: a caught error's Cause is data the state machine reads, not only an
 * event's detail. Where the id is not known (a context stored before it was kept, a cause the host
 * writes for a task), a mark naming the actor stands in, and the host resolves it when it stores
 * the event.
 */

// Control characters cannot occur in an actor id, and the mark is never shown: the host resolves it.
const MARK = '\u0001';

/** `text` as the cause of a failure of the state the actor `actorId` is in. */
export function inStateCause(actorId: string, text: string): string {
  return `${MARK}${actorId}${MARK}${text}`;
}

/** `text` as the cause of a failure of state `name`, entered at event `enteredId`. */
export function stateCause(name: string, enteredId: number, text: string): string {
  return `An error occurred while executing the state '${name}' (entered at the event id #${enteredId}). ${text}`;
}

/** Where an actor's current state was entered: [entered event id, state name]. */
export type EnteredLookup = (actorId: string) => readonly [number, string] | undefined;

/** The cause as AWS shows it: a mark becomes the sentence naming the state and its entered event. */
export function resolveCause(cause: string, entered: EnteredLookup): string {
  if (!cause.startsWith(MARK)) return cause;
  const end = cause.indexOf(MARK, 1);
  if (end < 0) return cause;
  const at = entered(cause.slice(1, end));
  const text = cause.slice(end + 1);
  return at === undefined ? text : stateCause(at[1], at[0], text);
}

/** A cause `stateCause` wrote, once the event `removed` was dropped before it was stored: a later entered id moves down by one. */
export function shiftEnteredId(cause: string, removed: number): string {
  return cause.replace(/^(An error occurred while executing the state '.*?' \(entered at the event id #)(\d+)(\)\. )/s,
    (all, head: string, id: string, tail: string) => (Number(id) > removed ? `${head}${Number(id) - 1}${tail}` : all));
}

/** The cause with any mark dropped: for data the host does not store as an event (a catcher's Cause, TestState's answer). */
export function plainCause(cause: string): string {
  return resolveCause(cause, () => undefined);
}
