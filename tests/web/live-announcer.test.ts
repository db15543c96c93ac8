/** What the live region speaks of a streaming answer: whole sentences, then the rest; no markdown. */
import { describe, expect, test } from 'bun:test';
import { nextAnnouncement, speakable, statusAnnouncement } from '../../web/live-announcer.ts';

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
