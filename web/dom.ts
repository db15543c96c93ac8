/**
 * A tiny DOM builder: `h('button', {type: 'button', onclick}, 'Save')`. The whole app is built from
 * it, so there is no framework and no virtual DOM — each view re-renders its own subtree on change.
 * Text children always become text nodes (never HTML), so server data cannot inject markup.
 */

export type Child = Node | string | number | false | null | undefined | Child[];

type EventHandlerKey = `on${string}`;
export type Attributes = {
  [key: string]: string | number | boolean | null | undefined | ((event: Event) => void);
} & { [key in EventHandlerKey]?: ((event: Event) => void) | undefined };

/** Creates an element with attributes (`on*` keys become listeners, booleans toggle) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'value' && 'value' in element) {
      (element as HTMLInputElement).value = String(value);
    } else if (key === 'checked' && element instanceof HTMLInputElement) {
      element.checked = Boolean(value);
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children, flattening arrays and skipping empty values. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = '';
  append(parent, children);
}

let idCounter = 0;
/** A document-unique id for label/input pairs and aria references. */
export function uniqueId(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
