/**
 * What a screen reader hears while an answer streams in: whole sentences, at most one announcement
 * every `intervalMs` (default 2 s), and the rest when the answer is complete, through one polite live
 * region; each announcement at most `MAX_ANNOUNCEMENT_LENGTH` characters, the newest. The transcript itself is not live (it would be read out token by token). Markdown markers
 * are dropped from what is spoken; the text is set as text, never as markup. The chat's status
 * messages ("Waiting for your approval") go through the same region, after whatever of the answer was
 * not spoken yet, so a listener hears things in the order they happened.
 */

/**
 * The most one announcement says, in characters (about half a minute of speech). More text came since
 * the last one (a fast stream, a long answer completing): the listener hears its newest whole sentences
 * up to this, the rest being in the transcript. Without a bound, a 100 KB burst would be set into the
 * live region at once: a screen reader cannot speak it, and laying it out stalls the page.
 */
export const MAX_ANNOUNCEMENT_LENGTH = 500;

/** Markdown shrinks when made speakable; this much source is enough for a full announcement. */
const MAX_ANNOUNCEMENT_SOURCE = 4 * MAX_ANNOUNCEMENT_LENGTH;

const SENTENCE_END = /[.!?:](?=\s)|\n/g;

/** Where the last sentence end of `text[from, to)` is (after it), or -1. Looks back from `to`. */
function lastSentenceEnd(text: string, from: number, to: number): number {
  // Searched in growing windows from the end, so a long rest costs what its last sentence costs.
  for (let size = 256; ; size *= 4) {
    const start = Math.max(from, to - size);
    let end = -1;
    for (const match of text.slice(start, to).matchAll(SENTENCE_END))
      end = start + match.index + match[0].length;
    if (end >= 0 || start === from) return end;
  }
}

/** Where the speakable part of `text[from, upTo)` starts: `from`, or the first sentence start within reach. */
function announcementStart(text: string, from: number, upTo: number): number {
  if (upTo - from <= MAX_ANNOUNCEMENT_SOURCE) return from;
  const cut = upTo - MAX_ANNOUNCEMENT_SOURCE;
  const boundary = new RegExp(SENTENCE_END.source, 'g');
  boundary.lastIndex = cut;
  const match = boundary.exec(text);
  const after = match ? match.index + match[0].length : -1;
  return after > cut && after < upTo ? after : cut;
}

/** The newest sentences of `chunk` within `MAX_ANNOUNCEMENT_LENGTH` (its newest words if one is longer). */
function boundedChunk(chunk: string): string {
  if (chunk.length <= MAX_ANNOUNCEMENT_LENGTH) return chunk;
  const tail = chunk.slice(chunk.length - MAX_ANNOUNCEMENT_LENGTH);
  const sentence = /[.!?:] /.exec(tail);
  if (sentence && sentence.index + 2 < tail.length) return tail.slice(sentence.index + 2);
  const space = tail.indexOf(' ');
  return space >= 0 && space < tail.length - 1 ? tail.slice(space + 1) : tail;
}

/**
 * The part of `text` after `announced` to speak now: up to the last sentence end, or all when final;
 * at most `MAX_ANNOUNCEMENT_LENGTH` characters of it, its newest.
 */
export function nextAnnouncement(
  text: string,
  announced: number,
  final: boolean,
): { chunk: string; upTo: number } | undefined {
  if (announced >= text.length) return undefined;
  let upTo = text.length;
  if (!final) {
    const end = lastSentenceEnd(text, announced, text.length);
    if (end < 0) return undefined;
    upTo = end;
  }
  const chunk = boundedChunk(speakable(text.slice(announcementStart(text, announced, upTo), upTo)));
  return { chunk, upTo };
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
