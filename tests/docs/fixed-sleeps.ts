/**
 * Fixed delays in test code: a `Bun.sleep`, `Bun.sleepSync`, `setTimeout`, `setInterval`,
 * `Atomics.wait`, Playwright's `waitForTimeout` or an import of `timers/promises`. A test that waits a
 * fixed time for an event is slow where the event is quick and flaky where the machine is loaded, so
 * each delay is either a condition wait (`waitUntil`, `holdsFor`, an injected clock) or a fixture's own
 * behaviour that says so on its line: `// fixture: <what it stands for>`. Text in comments is not code;
 * text in strings is (a script a test spawns with `bun -e` is test code too).
 */
import { sourceComments } from './source-comments.ts';

/** Calls that wait by the clock. `timers.setTimeout(…)` of an injected timer object is not one. */
const FIXED_DELAY =
  /\bBun\s*\.\s*sleep(?:Sync)?\s*\(|(?:^|[^\w.$]|\bglobalThis\s*\.\s*)set(?:Timeout|Interval)\s*\(|\bAtomics\s*\.\s*wait(?:Async)?\s*\(|\.\s*waitForTimeout\s*\(|['"`](?:node:)?timers\/promises['"`]/;
/** A cheap look at the whole file before it is parsed: most test files have no delay at all. */
const MAYBE_DELAY = /sleep|set(?:Timeout|Interval)|Atomics|waitForTimeout|timers\/promises/;
/** The marker of a fixture's delay: a line comment naming what the pause stands for. */
const FIXTURE_MARKER = /^\/\/ fixture: \S/;

export interface FixedSleep {
  /** 1-based line of the file. */
  line: number;
  /** The line, trimmed. */
  text: string;
}

/** Every line of `text` (a script) with a fixed delay not marked as a fixture's. */
export function findUnmarkedSleeps(text: string): FixedSleep[] {
  if (!MAYBE_DELAY.test(text)) return [];
  const comments = new Map<number, string[]>();
  for (const comment of sourceComments(text, 'script')) {
    comments.set(comment.line, [...(comments.get(comment.line) ?? []), comment.text]);
  }
  const found: FixedSleep[] = [];
  text.split('\n').forEach((line, index) => {
    const parts = comments.get(index + 1) ?? [];
    let code = line;
    for (const part of parts) {
      const at = code.lastIndexOf(part);
      if (at !== -1) code = code.slice(0, at) + code.slice(at + part.length);
    }
    if (!FIXED_DELAY.test(code)) return;
    if (parts.some((part) => FIXTURE_MARKER.test(part.trim()))) return;
    found.push({ line: index + 1, text: line.trim() });
  });
  return found;
}
