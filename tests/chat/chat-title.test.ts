/** Titles derived from a first message, and the check a chosen title passes. */
import { describe, expect, test } from 'bun:test';
import { DERIVED_TITLE_LENGTH, titleFromMessage, titleProblem } from '../../src/chat/chat-title.ts';

describe('titleFromMessage', () => {
  test('takes the first non-blank line with whitespace collapsed', () => {
    expect(titleFromMessage('\n\n   Fix   the\tbuild  \nand then the tests')).toBe('Fix the build');
    expect(titleFromMessage('one\r\ntwo')).toBe('one');
  });

  test('cuts a long line at a word boundary and marks the cut', () => {
    const title = titleFromMessage(
      'Summarize every open incident of the last quarter by team, severity and time to resolve',
    );
    expect(title).toBe('Summarize every open incident of the last quarter by team,…');
    expect([...title].length).toBeLessThanOrEqual(DERIVED_TITLE_LENGTH);
  });

  test('cuts a single long word where it must, never splitting a character', () => {
    expect(titleFromMessage('x'.repeat(80))).toBe(`${'x'.repeat(59)}…`);
    const emoji = '😀'.repeat(70);
    expect(titleFromMessage(emoji)).toBe(`${'😀'.repeat(59)}…`);
  });

  test('keeps a line that fits, replaces control characters, and falls back for blank text', () => {
    expect(titleFromMessage('x'.repeat(60))).toBe('x'.repeat(60));
    expect(titleFromMessage('a\u0007b\u0000c')).toBe('a b c');
    expect(titleFromMessage(' \n\t\n ')).toBe('New chat');
  });
});

describe('titleProblem', () => {
  test('accepts one line of 1–200 characters', () => {
    expect(titleProblem('Budget')).toBeUndefined();
    expect(titleProblem('ü'.repeat(200))).toBeUndefined();
  });

  test('names what is wrong', () => {
    expect(titleProblem('')).toBe('title must not be empty.');
    expect(titleProblem('y'.repeat(201))).toBe('title must be at most 200 characters; got 201.');
    expect(titleProblem('a\tb')).toBe(
      'title must be one line of text without control characters; got U+0009 at position 2.',
    );
    expect(titleProblem('a\u2028b')).toBe(
      'title must be one line of text without control characters; got U+2028 at position 2.',
    );
    expect(titleProblem('\u009b')).toBe(
      'title must be one line of text without control characters; got U+009B at position 1.',
    );
  });
});
