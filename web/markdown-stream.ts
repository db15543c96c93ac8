/**
 * Incremental markdown for a streaming answer: each update parses only the text after the blocks
 * already rendered, hands back the blocks that just became complete (rendered once, highlighted, never
 * touched again) and the one still open (re-rendered on the next update, code left plain so a long
 * streaming block stays cheap). A top-level block is complete once another block starts after it: no
 * later text can change it. The concatenated output equals rendering the whole text at once, except that a
 * link reference defined after its use is resolved only in blocks rendered after the definition.
 * Pure (no DOM), so that equality is unit-tested.
 */
import { type MarkdownRenderEnvironment, markdown } from './markdown-renderer.ts';

/** A run of complete blocks, as rendered, with the languages it would highlight once loaded. */
export interface MarkdownChunk {
  source: string;
  html: string;
  missingLanguages: Set<string>;
}

export interface MarkdownStep {
  /** True when the text was not an extension of the last one: drop everything shown and start over. */
  reset: boolean;
  /** Blocks that became complete with this update (possibly none). */
  completed: MarkdownChunk[];
  /** The open block(s) at the end, as HTML ('' when none is open). */
  live: string;
}

/** `\r\n` and lone `\r` as `\n`, as markdown-it reads them (so line numbers map onto offsets). */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** The offset where line `line` (0-based) of `text` starts. */
function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let current = 0; current < line; current += 1) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return offset;
}

export class IncrementalMarkdown {
  private text = '';
  private committed = 0;
  /** Shared by every render, so link references carry from one block to the next. */
  private readonly references: MarkdownRenderEnvironment = {};

  /** Renders `source` (complete blocks) with highlighting; used again when a language arrives. */
  renderChunk(source: string): MarkdownChunk {
    const env: MarkdownRenderEnvironment = this.references;
    env.missingLanguages = new Set<string>();
    env.plainCode = false;
    const html = markdown.render(source, env);
    const missingLanguages = env.missingLanguages;
    delete env.missingLanguages;
    return { source, html, missingLanguages };
  }

  private scratchEnvironment(): MarkdownRenderEnvironment {
    const known = this.references.references as Record<string, unknown> | undefined;
    return known ? { references: { ...known } } : {};
  }

  update(rawText: string): MarkdownStep {
    const text = normalizeNewlines(rawText);
    let reset = false;
    if (!text.startsWith(this.text)) {
      reset = true;
      this.committed = 0;
    }
    this.text = text;
    const tail = text.slice(this.committed);
    // A copy: a reference definition still streaming must not be fixed in its partial form.
    const tokens = markdown.parse(tail, this.scratchEnvironment());
    const starts = tokens
      .filter((token) => token.level === 0 && token.nesting >= 0 && token.map !== null)
      .map((token) => token.map![0]);
    const completed: MarkdownChunk[] = [];
    let open = tail;
    if (starts.length >= 2) {
      const split = offsetOfLine(tail, starts.at(-1)!);
      if (split > 0) {
        completed.push(this.renderChunk(tail.slice(0, split)));
        this.committed += split;
        open = tail.slice(split);
      }
    }
    const liveEnv: MarkdownRenderEnvironment = { ...this.scratchEnvironment(), plainCode: true };
    return { reset, completed, live: open.trim() === '' ? '' : markdown.render(open, liveEnv) };
  }

  /** The answer is complete: the open block becomes a chunk like any other. */
  finish(rawText: string): MarkdownStep {
    const step = this.update(rawText);
    const rest = this.text.slice(this.committed);
    if (rest.trim() !== '') step.completed.push(this.renderChunk(rest));
    this.committed = this.text.length;
    return { ...step, live: '' };
  }
}
