import type { Permission, ScopesView } from './api.js';
import { type Child, replace } from './dom.js';

/**
 * The page being shown. A page writes only through its view, and a view goes stale once the user
 * moves on, so an answer that arrives late never overwrites the next page.
 */
export interface View {
  readonly main: HTMLElement;
  readonly session: Session;
  current(): boolean;
  show(...children: Child[]): void;
}

/** What the key may do, read once per key from GET /v1/scopes. */
export interface Session {
  scopes: ScopesView;
  /** True when the server runs without keys (loopback only, full access). */
  keyless: boolean;
  can(permission: Permission): boolean;
}

export function createView(main: HTMLElement, session: Session, current: () => boolean): View {
  return {
    main,
    session,
    current,
    show: (...children) => {
      if (current()) replace(main, ...children);
    },
  };
}
