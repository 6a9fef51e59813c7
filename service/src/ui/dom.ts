// Builds DOM nodes from data. Text is always set as text, never parsed as HTML: nothing a webhook's name,
// URL or a receiver's error text contains can become markup or script.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | number | undefined | null | EventListener>;

/** `h('button', { type: 'button', onclick: fn }, 'Save')`: attributes starting with "on" become listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces what `parent` shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

let nextId = 0;
/** A document-unique id, for tying a label or a message to its field. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** Runs an action with its button disabled, so a double click cannot send it twice. */
export function busy(button: HTMLButtonElement, action: () => Promise<void>): void {
  button.disabled = true;
  // Every action reports its own failure to the user (ctx.fail); one that still rejects is a bug, for the console.
  void action().finally(() => {
    button.disabled = false;
  });
}
