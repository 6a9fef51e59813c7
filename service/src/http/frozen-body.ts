// Response bodies that can never change: frozen all the way down when they are made, so the serializer may
// check and write one once and answer every later request that returns the same object with the same JSON.
// A webhook read from the cache is such a body: one frozen record until a write replaces it.

const frozenBodies = new WeakSet<object>();

/** A JSON body is a tree, so this ends; an object frozen already is still walked, as what it holds may not be. */
function freezeDeeply(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  Object.freeze(value);
  for (const member of Object.values(value)) freezeDeeply(member);
}

/** Freezes `body` and everything it holds, and marks it as a body whose JSON may be kept. */
export function frozenBody<T extends object>(body: T): Readonly<T> {
  freezeDeeply(body);
  frozenBodies.add(body);
  return body;
}

export function isFrozenBody(body: unknown): body is object {
  return typeof body === 'object' && body !== null && frozenBodies.has(body);
}

const okEnvelopes = new WeakMap<object, { data: object; status: { code: 200 } }>();

/**
 * `{ data, status: { code: 200 } }`, made once per `data` object: a route that answers many requests with the
 * same unchanging `data` then answers with the same frozen body, whose JSON is written once.
 */
export function okEnvelopeOf<T extends object>(data: T): { readonly data: T; readonly status: { readonly code: 200 } } {
  let envelope = okEnvelopes.get(data);
  if (envelope === undefined) {
    envelope = frozenBody({ data, status: { code: 200 as const } });
    okEnvelopes.set(data, envelope);
  }
  return envelope as { data: T; status: { code: 200 } };
}
