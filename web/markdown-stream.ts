/**
 * Incremental markdown for a streaming answer: each update parses only the text after the blocks
 * already rendered, hands back the blocks that just became complete (rendered once, highlighted, never
 * touched again) and the one still open (re-rendered on the next update, code left plain so a long
 * streaming block stays cheap), at most about a frame's worth of text per step; with `deferHighlighting`
 * complete blocks come plain too, and `highlightChunk` gives their final HTML later. A top-level block is complete once another block starts after it: no
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
  /**
   * Set when the chunk was rendered with its code left plain (`deferHighlighting`) and has code: the
   * link references it was rendered with, for `highlightChunk` to render it again the same way.
   */
  deferred?: Record<string, unknown>;
}

export interface IncrementalMarkdownOptions {
  /**
   * Complete chunks come with their code plain, to be highlighted later (`highlightChunk`, at idle
   * time): highlighting, and compiling a language's grammar on first use, are the costliest part of a
   * step, and a step runs in a frame.
   */
  deferHighlighting?: boolean;
}

export interface MarkdownStep {
  /** True when the text was not an extension of the last one: drop everything shown and start over. */
  reset: boolean;
  /** Blocks that became complete with this update (possibly none). */
  completed: MarkdownChunk[];
  /** The open block(s) at the end, as HTML ('' when none is open, or while `pending`). */
  live: string;
  /**
   * More text is waiting than one step may render: call `update` again with the same text (the view does
   * it on the next frame), so a burst of text never becomes one long task.
   */
  pending: boolean;
}

/** Text one step renders at most, unless a single block is longer (about a frame's work). */
export const DEFAULT_STEP_BUDGET = 8 * 1024;

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
  private readonly deferHighlighting: boolean;

  constructor(options: IncrementalMarkdownOptions = {}) {
    this.deferHighlighting = options.deferHighlighting === true;
  }

  /** Renders `source` (complete blocks) with highlighting; used again when a language arrives. */
  renderChunk(source: string): MarkdownChunk {
    return this.renderComplete(source, false);
  }

  private renderComplete(source: string, plainCode: boolean): MarkdownChunk {
    const env: MarkdownRenderEnvironment = this.references;
    env.missingLanguages = new Set<string>();
    env.plainCode = plainCode;
    const html = markdown.render(source, env);
    const missingLanguages = env.missingLanguages;
    delete env.missingLanguages;
    env.plainCode = false;
    if (!plainCode || !html.includes('<div class="markdown-code">'))
      return { source, html, missingLanguages };
    // The references as this render saw them (its own definitions included), not as later text extends them.
    const known = env.references as Record<string, unknown> | undefined;
    return { source, html, missingLanguages, deferred: known ? { ...known } : {} };
  }

  /**
   * The chunk's HTML with its code highlighted: what `renderChunk` gives (with the languages loaded
   * now), rendered with the link references the chunk first saw.
   */
  highlightChunk(chunk: MarkdownChunk): string {
    if (chunk.deferred === undefined) return this.renderChunk(chunk.source).html;
    const env: MarkdownRenderEnvironment = { references: { ...chunk.deferred } };
    return markdown.render(chunk.source, env);
  }

  /** A complete run of blocks as a step hands it out: highlighted now, or later when deferring. */
  private completeChunk(source: string): MarkdownChunk {
    return this.renderComplete(source, this.deferHighlighting);
  }

  private scratchEnvironment(): MarkdownRenderEnvironment {
    const known = this.references.references as Record<string, unknown> | undefined;
    return known ? { references: { ...known } } : {};
  }

  /** Where the last top-level block of `source` starts (0 when it holds fewer than two). */
  private lastBlockStart(source: string): number {
    // A copy: a reference definition still streaming must not be fixed in its partial form.
    const tokens = markdown.parse(source, this.scratchEnvironment());
    const starts = tokens
      .filter((token) => token.level === 0 && token.nesting >= 0 && token.map !== null)
      .map((token) => token.map![0]);
    return starts.length >= 2 ? offsetOfLine(source, starts.at(-1)!) : 0;
  }

  update(rawText: string, budget = DEFAULT_STEP_BUDGET): MarkdownStep {
    const text = normalizeNewlines(rawText);
    let reset = false;
    if (!text.startsWith(this.text)) {
      reset = true;
      this.committed = 0;
    }
    this.text = text;
    const tail = text.slice(this.committed);
    // A prefix ending at a line break is what the text was at some moment of the stream: the blocks
    // complete in it are complete in the whole.
    const windowEnd = tail.length > budget ? tail.lastIndexOf('\n', budget) + 1 : 0;
    if (windowEnd > 0) {
      const split = this.lastBlockStart(tail.slice(0, windowEnd));
      if (split > 0) {
        const chunk = this.completeChunk(tail.slice(0, split));
        this.committed += split;
        return { reset, completed: [chunk], live: '', pending: true };
      }
    }
    const completed: MarkdownChunk[] = [];
    let open = tail;
    const split = this.lastBlockStart(tail);
    if (split > 0) {
      completed.push(this.completeChunk(tail.slice(0, split)));
      this.committed += split;
      open = tail.slice(split);
    }
    const liveEnv: MarkdownRenderEnvironment = { ...this.scratchEnvironment(), plainCode: true };
    return {
      reset,
      completed,
      live: open.trim() === '' ? '' : markdown.render(open, liveEnv),
      pending: false,
    };
  }

  /**
   * The answer is complete: the open block becomes a chunk like any other. While `pending`, more
   * complete blocks are waiting: call `finish` again, as with `update`.
   */
  finish(rawText: string, budget = DEFAULT_STEP_BUDGET): MarkdownStep {
    const step = this.update(rawText, budget);
    if (step.pending) return step;
    const rest = this.text.slice(this.committed);
    if (rest.trim() !== '') step.completed.push(this.completeChunk(rest));
    this.committed = this.text.length;
    return { ...step, live: '' };
  }
}
