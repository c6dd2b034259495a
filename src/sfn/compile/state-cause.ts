/**
 * AWS words a runtime failure of a state as `An error occurred while executing the state 'X'
 * (entered at the event id #N). <what went wrong>`. A machine knows the state but not the event id
 * (ids are given when the host stores the events), so it writes a mark naming its actor, and the
 * host puts the state's name and entered-event id in its place when it stores the event.
 */

// Control characters cannot occur in an actor id, and the mark is never shown: the host resolves it.
const MARK = '\u0001';

/** `text` as the cause of a failure of the state the actor `actorId` is in. */
export function inStateCause(actorId: string, text: string): string {
  return `${MARK}${actorId}${MARK}${text}`;
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
  return at === undefined ? text : `An error occurred while executing the state '${at[1]}' (entered at the event id #${at[0]}). ${text}`;
}
