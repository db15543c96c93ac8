/** What the live region speaks of a streaming answer: whole sentences, then the rest; no markdown. */
import { describe, expect, test } from 'bun:test';
import {
  MAX_ANNOUNCEMENT_LENGTH,
  nextAnnouncement,
  speakable,
  statusAnnouncement,
} from '../../web/live-announcer.ts';

describe('nextAnnouncement', () => {
  test('speaks up to the last sentence end, and nothing while a sentence is unfinished', () => {
    expect(nextAnnouncement('Hello there. How are', 0, false)).toEqual({ chunk: 'Hello there.', upTo: 12 });
    expect(nextAnnouncement('Hello there. How are', 12, false)).toBeUndefined();
    expect(nextAnnouncement('Hello there. How are you? Fine', 12, false)).toEqual({
      chunk: 'How are you?',
      upTo: 25,
    });
  });
  test('a line break ends a chunk; a dot inside a word does not', () => {
    expect(nextAnnouncement('Use file.txt now\nnext', 0, false)).toEqual({
      chunk: 'Use file.txt now',
      upTo: 17,
    });
  });
  test('when final, everything left is spoken; nothing left is nothing', () => {
    expect(nextAnnouncement('Done. Bye', 6, true)).toEqual({ chunk: 'Bye', upTo: 9 });
    expect(nextAnnouncement('Done.', 5, true)).toBeUndefined();
  });
  test('more than one announcement holds: its newest whole sentences, at most the limit, all of it marked spoken', () => {
    const sentences = Array.from({ length: 400 }, (_, index) => `Sentence ${index} is **here** now.`);
    const text = `${sentences.join(' ')} Unfinished`;
    const upTo = text.length - ' Unfinished'.length;
    const next = nextAnnouncement(text, 0, false)!;
    expect(next.upTo).toBe(upTo);
    expect(MAX_ANNOUNCEMENT_LENGTH).toBe(500);
    expect(next.chunk.length).toBeLessThanOrEqual(500);
    expect(next.chunk.endsWith('Sentence 399 is here now.')).toBe(true);
    // Whole sentences: the chunk starts where one does, and is every sentence from there on.
    const first = Number(/^Sentence (\d+) /.exec(next.chunk)![1]);
    expect(next.chunk).toBe(speakable(sentences.slice(first).join(' ')));
    expect(speakable(sentences.slice(first - 1).join(' ')).length).toBeGreaterThan(500);
    // Final: the same bound, ending with the unfinished rest.
    const final = nextAnnouncement(text, 0, true)!;
    expect(final.upTo).toBe(text.length);
    expect(final.chunk.endsWith('Sentence 399 is here now. Unfinished')).toBe(true);
    expect(final.chunk.length).toBeLessThanOrEqual(500);
  });
  test('one sentence longer than the limit: its newest words, starting at a word', () => {
    const words = Array.from({ length: 200 }, (_, index) => `w${index}`);
    const next = nextAnnouncement(`${words.join(' ')}. Next`, 0, false)!;
    expect(next.chunk.length).toBeLessThanOrEqual(500);
    expect(next.chunk.endsWith('w199.')).toBe(true);
    expect(words.includes(next.chunk.split(' ')[0]!)).toBe(true);
  });
  test('a chunk of only markup advances without speaking', () => {
    expect(nextAnnouncement('## \n', 0, false)).toEqual({ chunk: '', upTo: 4 });
  });
});

describe('speakable', () => {
  test('drops headings, emphasis, code and table punctuation', () => {
    expect(speakable('## Title\n**bold** and `code`\n| a | b |\n```ts\nlet x\n```')).toBe(
      'Title bold and code a b let x',
    );
  });
});

describe('statusAnnouncement', () => {
  test('the unspoken rest of the answer comes first, then the status', () => {
    expect(
      statusAnnouncement('Let me look. I will run **ls**', 13, 'Waiting for your approval: bash'),
    ).toEqual({
      text: 'I will run ls Waiting for your approval: bash',
      upTo: 30,
    });
  });
  test('with the answer all spoken, or no answer, only the status', () => {
    expect(statusAnnouncement('Done.', 5, 'Cancelling…')).toEqual({ text: 'Cancelling…', upTo: 5 });
    expect(statusAnnouncement('', 0, 'The model is working…')).toEqual({
      text: 'The model is working…',
      upTo: 0,
    });
  });
});
