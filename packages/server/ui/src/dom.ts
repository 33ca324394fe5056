// The only way the inspector builds its pages: elements from tag names, text as text nodes. Nothing
// here parses HTML (no innerHTML, no insertAdjacentHTML), so memory text can hold any markup and
// shows it literally; links only go to the inspector's own #routes, or (downloadLink) to an object
// URL of data the page itself fetched.

export type Child = Node | string | number | null | undefined | false | readonly Child[];

type Handler = (event: Event) => void;

export interface Props {
  class?: string;
  id?: string;
  /** A route of the inspector (`#/...`); nothing else is linked. */
  href?: string;
  on?: Partial<Record<'click' | 'submit' | 'input' | 'change' | 'keydown', Handler>>;
  /** Plain attributes (aria-*, type, name, value, min, ...), set as text. */
  attrs?: Record<string, string | number | boolean | undefined>;
}

export function h(tag: string, props: Props | null, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  if (props?.class) element.className = props.class;
  if (props?.id) element.id = props.id;
  if (props?.href !== undefined) {
    if (!props.href.startsWith('#')) throw new Error(`links stay inside the inspector: ${props.href}`);
    element.setAttribute('href', props.href);
  }
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    if (/^on/iu.test(name) || name === 'href' || name === 'src' || name === 'style') {
      throw new Error(`attribute ${name} is not set through attrs`);
    }
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [event, handler] of Object.entries(props?.on ?? {})) {
    if (handler) element.addEventListener(event, handler);
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces the children of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A labelled form field: the label names the control, the hint (if any) describes it. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  control.id = id;
  let hintNode: HTMLElement | undefined;
  if (hint) {
    hintNode = h('p', { class: 'hint', id: `${id}-hint` }, hint);
    control.setAttribute('aria-describedby', hintNode.id);
  }
  return h('div', { class: 'field' }, h('label', { attrs: { for: id } }, label), control, hintNode);
}

/** A description list of term/value pairs; values are text or nodes. */
export function facts(pairs: readonly (readonly [string, Child] | false | null | undefined)[]): HTMLElement {
  const list = h('dl', { class: 'facts' });
  for (const pair of pairs) {
    if (!pair) continue;
    list.append(h('div', null, h('dt', null, pair[0]), h('dd', null, pair[1])));
  }
  return list;
}

/** Untrusted memory text: in a block that keeps its line breaks, as text. */
export function memoryText(text: string, extraClass = ''): HTMLElement {
  return h('p', { class: `memory-text ${extraClass}`.trim() }, text);
}

export function button(
  label: string,
  onClick: () => void,
  options: { kind?: 'primary' | 'danger' | 'plain'; disabled?: boolean; describedBy?: string } = {},
): HTMLButtonElement {
  return h(
    'button',
    {
      class: `btn ${options.kind ?? 'plain'}`,
      attrs: { type: 'button', disabled: options.disabled, 'aria-describedby': options.describedBy },
      on: { click: () => onClick() },
    },
    label,
  ) as HTMLButtonElement;
}

export function announce(message: string): void {
  const status = document.getElementById('status');
  if (status) status.textContent = message;
}

/**
 * A link that saves `blob` as `filename`: the one kind of link not to a #route, to a `blob:` URL of
 * this page made from data it fetched itself (an export: the API needs the key in a header, so a
 * plain link to the route cannot download it). `revoke` frees the data once the link is gone.
 */
export function downloadLink(
  blob: Blob,
  filename: string,
  label: string,
): { link: HTMLAnchorElement; revoke(): void } {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.setAttribute('href', url);
  link.setAttribute('download', filename);
  link.textContent = label;
  return { link, revoke: () => URL.revokeObjectURL(url) };
}
