/**
 * What a screen reader hears while an answer streams in: whole sentences, at most one announcement
 * every `intervalMs` (default 2 s), and the rest when the answer is complete, through one polite live
 * region. The transcript itself is not live (it would be read out token by token). Markdown markers
 * are dropped from what is spoken; the text is set as text, never as markup. The chat's status
 * messages ("Waiting for your approval") go through the same region, after whatever of the answer was
 * not spoken yet, so a listener hears things in the order they happened.
 */

/** The part of `text` after `announced` to speak now: up to the last sentence end, or all when final. */
export function nextAnnouncement(
  text: string,
  announced: number,
  final: boolean,
): { chunk: string; upTo: number } | undefined {
  if (announced >= text.length) return undefined;
  let upTo = text.length;
  if (!final) {
    const rest = text.slice(announced);
    let end = -1;
    for (const match of rest.matchAll(/[.!?:](?=\s)|\n/g)) end = match.index + match[0].length;
    if (end < 0) return undefined;
    upTo = announced + end;
  }
  const chunk = speakable(text.slice(announced, upTo));
  return chunk === '' ? { chunk: '', upTo } : { chunk, upTo };
}

/** Text without markdown punctuation a listener should not hear (`##`, `**`, table pipes, fences). */
export function speakable(markdown: string): string {
  return markdown
    .replace(/```[^\n]*/g, ' ')
    .replace(/[#*_`>|~]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface LiveAnnouncer {
  /** The visually hidden polite region; mount it once beside the transcript. */
  element: HTMLElement;
  /** The answer `key` has grown to `text`. A new key starts a new answer. */
  update(key: object, text: string): void;
  /** The answer `key` is complete: speak what is left of it. */
  finish(key: object, text: string): void;
  /** Speaks a status message now, after the rest of the current answer (which stays current). */
  announce(message: string): void;
}

/** What `announce` speaks: the unspoken rest of the answer, then the message. */
export function statusAnnouncement(
  answer: string,
  announced: number,
  message: string,
): { text: string; upTo: number } {
  const rest = nextAnnouncement(answer, announced, true);
  const text = [rest?.chunk ?? '', message.trim()].filter((part) => part !== '').join(' ');
  return { text, upTo: rest?.upTo ?? announced };
}

export function createLiveAnnouncer(intervalMs = 2000): LiveAnnouncer {
  const element = document.createElement('div');
  element.className = 'visually-hidden';
  element.setAttribute('aria-live', 'polite');
  element.setAttribute('aria-atomic', 'true');
  let current: object | undefined;
  let announced = 0;
  let latest = '';
  let timer: ReturnType<typeof setTimeout> | undefined;

  const speak = (final: boolean) => {
    const next = nextAnnouncement(latest, announced, final);
    if (!next) return;
    announced = next.upTo;
    if (next.chunk !== '') element.textContent = next.chunk;
  };
  const follow = (key: object) => {
    if (current === key) return;
    current = key;
    announced = 0;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    element,
    update(key, text) {
      follow(key);
      latest = text;
      timer ??= setTimeout(() => {
        timer = undefined;
        if (current === key) speak(false);
      }, intervalMs);
    },
    finish(key, text) {
      if (current !== key) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      latest = text;
      speak(true);
      current = undefined;
    },
    announce(message) {
      const next = statusAnnouncement(current === undefined ? '' : latest, announced, message);
      if (current !== undefined) announced = next.upTo;
      if (next.text !== '') element.textContent = next.text;
    },
  };
}
