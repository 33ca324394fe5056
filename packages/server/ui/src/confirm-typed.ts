// A confirmation for what cannot be undone (purge an entry, delete a scope): the user types the word
// shown, and the button stays disabled until the field holds exactly that word.
import { button, field, h } from './dom.js';

export function typedConfirmation(options: {
  /** What to type, shown in the label. */
  word: string;
  /** Says where the word comes from ("the first 8 characters of the entry id"). */
  hint: string;
  /** The button's label. */
  action: string;
  name: string;
  onConfirm: () => void;
}): { element: HTMLElement; reset(): void } {
  const input = h('input', {
    attrs: {
      type: 'text',
      name: options.name,
      autocomplete: 'off',
      spellcheck: 'false',
      autocapitalize: 'off',
    },
  }) as HTMLInputElement;
  const go = button(options.action, () => options.onConfirm(), { kind: 'danger', disabled: true });
  const update = () => {
    go.disabled = input.value.trim() !== options.word;
  };
  input.addEventListener('input', update);
  const row = field(`Type ${options.word} to confirm`, input, options.hint);
  // The button names why it is disabled: the same hint as the field.
  go.setAttribute('aria-describedby', `${input.id}-hint`);
  return {
    element: h('div', { class: 'confirm typed' }, row, go),
    reset: () => {
      input.value = '';
      update();
    },
  };
}
