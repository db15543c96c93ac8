/**
 * Makes a textarea as tall as its text, between its `rows` and its CSS `max-height` (beyond which it
 * scrolls). Browsers with `field-sizing: content` do it in CSS alone; elsewhere its height is set on
 * every input. `resize()` is for changes made by code (a sent message empties it).
 */

export interface AutoGrow {
  resize(): void;
}

export function autoGrow(textarea: HTMLTextAreaElement): AutoGrow {
  if (typeof CSS !== 'undefined' && CSS.supports('field-sizing', 'content')) return { resize: () => {} };
  const resize = () => {
    textarea.style.height = 'auto';
    textarea.style.height = `${textarea.scrollHeight + textarea.offsetHeight - textarea.clientHeight}px`;
  };
  textarea.addEventListener('input', resize);
  return { resize };
}
