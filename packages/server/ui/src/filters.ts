// Steering in the page (RFC 0014): the "Filters" of the search and context pages, and the checks the
// entries page shares. The page checks what is simple to check (a kind's spelling, a time it can
// read, an empty time range); the server checks the rest and answers 422, shown by failureView.
import type { EntryFilter } from './api.js';
import { field, h } from './dom.js';

/** A kind as the API spells it: 1-64 lowercase letters, digits, "_", "." or "-", from a letter. */
const KIND = /^[a-z][a-z0-9_.-]{0,63}$/u;

/** The values of a comma-separated field, trimmed, empties dropped, first-seen order kept. */
export function listOf(value: string): string[] {
  return [...new Set(value.split(',').map((part) => part.trim()))].filter((part) => part !== '');
}

/** What is wrong with a comma-separated list of kinds, or undefined. */
export function kindsProblem(kinds: readonly string[]): string | undefined {
  const bad = kinds.find((kind) => !KIND.test(kind));
  return bad === undefined
    ? undefined
    : `“${bad}” is not a kind: 1-64 lowercase letters, digits, “_”, “.” or “-”, starting with a letter.`;
}

/** A control, its problem line, and how to mark it invalid or clear it. */
export interface CheckedControl {
  readonly control: HTMLInputElement | HTMLSelectElement;
  readonly problem: HTMLElement;
  refuse(message: string): void;
  clear(): void;
}

/** Wraps a control with a problem line below it, tied by aria-describedby while it shows. */
export function checked(control: HTMLInputElement | HTMLSelectElement): CheckedControl {
  control.id ||= `f-${Math.random().toString(36).slice(2, 10)}`;
  const problem = h('p', { id: `${control.id}-problem`, class: 'field-error' });
  problem.hidden = true;
  const described = () => (control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  const clear = () => {
    problem.hidden = true;
    problem.textContent = '';
    control.removeAttribute('aria-invalid');
    const rest = described().filter((id) => id !== problem.id);
    if (rest.length > 0) control.setAttribute('aria-describedby', rest.join(' '));
    else control.removeAttribute('aria-describedby');
  };
  control.addEventListener('input', clear);
  return {
    control,
    problem,
    clear,
    refuse(message) {
      problem.textContent = message;
      problem.hidden = false;
      control.setAttribute('aria-invalid', 'true');
      if (!described().includes(problem.id)) {
        control.setAttribute('aria-describedby', [...described(), problem.id].join(' '));
      }
    },
  };
}

/** A labelled field whose control can show a problem below it. */
export function checkedField(label: string, check: CheckedControl, hint?: string): HTMLElement {
  const wrapper = field(label, check.control, hint);
  wrapper.append(check.problem);
  return wrapper;
}

export function pinnedSelect(name: string): HTMLSelectElement {
  return h(
    'select',
    { attrs: { name } },
    h('option', { attrs: { value: '' } }, 'Pinned or not'),
    h('option', { attrs: { value: 'true' } }, 'Pinned only'),
    h('option', { attrs: { value: 'false' } }, 'Not pinned only'),
  ) as HTMLSelectElement;
}

function timeInput(name: string): HTMLInputElement {
  // Seconds too (step 1): a version's written time is kept to the millisecond.
  return h('input', { attrs: { type: 'datetime-local', name, step: 1 } }) as HTMLInputElement;
}

/** A datetime-local value (the browser's local time) as an RFC 3339 time in UTC. */
function utcOf(local: string): string | undefined {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The filter fieldset, and reading it: the filter to send, or false after marking what is wrong. */
export interface FilterFields {
  readonly element: HTMLElement;
  read(): EntryFilter | undefined | false;
}

/**
 * "Filters" of a search or a prepared context, in a disclosure that starts closed: kinds, tags (all
 * of, any of), pinned, and the written and occurred time ranges. Every value given must hold.
 */
export function filterFields(): FilterFields {
  const kinds = checked(h('input', { attrs: { type: 'text', name: 'kinds' } }) as HTMLInputElement);
  const tagsAll = h('input', { attrs: { type: 'text', name: 'tags_all' } }) as HTMLInputElement;
  const tagsAny = h('input', { attrs: { type: 'text', name: 'tags_any' } }) as HTMLInputElement;
  const pinned = pinnedSelect('pinned');
  const times = {
    written_after: checked(timeInput('written_after')),
    written_before: checked(timeInput('written_before')),
    occurred_after: checked(timeInput('occurred_after')),
    occurred_before: checked(timeInput('occurred_before')),
  } as const;
  const summaryCount = h('span', { class: 'filter-count' });
  const details = h(
    'details',
    { class: 'filters' },
    h('summary', null, 'Filters', summaryCount),
    h(
      'fieldset',
      null,
      h('legend', null, 'Only entries that match all of these'),
      h(
        'div',
        { class: 'controls' },
        checkedField('Kinds', kinds, 'Comma-separated, e.g. decision, fact: any of them.'),
        field('Has all tags', tagsAll, 'Comma-separated; case does not matter.'),
        field('Has any tag', tagsAny, 'Comma-separated; one is enough.'),
        field('Pinned', pinned),
      ),
      h(
        'div',
        { class: 'controls' },
        checkedField('Written after', times.written_after, 'Your local time.'),
        checkedField('Written before', times.written_before),
        checkedField('Occurred after', times.occurred_after, 'The time the entry is about.'),
        checkedField('Occurred before', times.occurred_before),
      ),
    ),
  ) as HTMLDetailsElement;

  const showCount = (filter: EntryFilter | undefined) => {
    const count = filter ? Object.keys(filter).length : 0;
    summaryCount.textContent = count === 0 ? '' : ` (${count} set)`;
  };

  return {
    element: details,
    read() {
      for (const check of [kinds, ...Object.values(times)]) check.clear();
      const filter: EntryFilter = {};
      const problems: CheckedControl[] = [];
      const kindList = listOf(kinds.control.value);
      const kindProblem = kindsProblem(kindList);
      if (kindProblem) {
        kinds.refuse(kindProblem);
        problems.push(kinds);
      } else if (kindList.length > 0) filter.kinds = kindList;
      const everyTag = listOf(tagsAll.value);
      if (everyTag.length > 0) filter.tags_all = everyTag;
      const someTag = listOf(tagsAny.value);
      if (someTag.length > 0) filter.tags_any = someTag;
      if (pinned.value !== '') filter.pinned = pinned.value === 'true';
      for (const [name, check] of Object.entries(times) as [keyof typeof times, CheckedControl][]) {
        const input = check.control as HTMLInputElement;
        if (input.validity.badInput) {
          check.refuse('Complete the date and time, or clear it.');
          problems.push(check);
          continue;
        }
        if (input.value === '') continue;
        const utc = utcOf(input.value);
        if (utc === undefined) {
          check.refuse('This is not a time the page can read.');
          problems.push(check);
        } else filter[name] = utc;
      }
      for (const [after, before, words] of [
        ['written_after', 'written_before', 'Written'],
        ['occurred_after', 'occurred_before', 'Occurred'],
      ] as const) {
        const from = filter[after];
        const to = filter[before];
        if (from !== undefined && to !== undefined && Date.parse(from) >= Date.parse(to)) {
          times[before].refuse(`${words} before must be later than ${words.toLowerCase()} after.`);
          problems.push(times[before]);
        }
      }
      if (problems.length > 0) {
        details.open = true;
        problems[0]?.control.focus();
        return false;
      }
      const kept = Object.keys(filter).length === 0 ? undefined : filter;
      showCount(kept);
      return kept;
    },
  };
}
