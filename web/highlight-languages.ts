/**
 * Syntax highlighting with highlight.js (plain JavaScript, so it runs under the page's `script-src
 * 'self'` policy). Only the core is in the initial bundle; each language is its own chunk, imported the
 * first time a code block names it. `highlightCode` answers with escaped HTML in every case: highlighted
 * when the language is loaded, plain when it is not (yet) or is unknown.
 */
import hljs from 'highlight.js/lib/core';

type LanguageModule = { default: Parameters<typeof hljs.registerLanguage>[1] };

/** The languages offered, each with its fence names; every name maps to one chunk. */
const LANGUAGE_LOADERS = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  go: () => import('highlight.js/lib/languages/go'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  php: () => import('highlight.js/lib/languages/php'),
  python: () => import('highlight.js/lib/languages/python'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  shell: () => import('highlight.js/lib/languages/shell'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
} satisfies Record<string, () => Promise<LanguageModule>>;
type OfferedLanguage = keyof typeof LANGUAGE_LOADERS;

const ALIASES: Record<string, string> = {
  sh: 'bash',
  zsh: 'bash',
  'c++': 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  patch: 'diff',
  docker: 'dockerfile',
  toml: 'ini',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  kt: 'kotlin',
  md: 'markdown',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  console: 'shell',
  ts: 'typescript',
  tsx: 'typescript',
  html: 'xml',
  svg: 'xml',
  yml: 'yaml',
};

/** How each offered language is called in a sentence ("Copy TypeScript code"). */
const DISPLAY_NAMES: Record<OfferedLanguage, string> = {
  bash: 'Bash',
  c: 'C',
  cpp: 'C++',
  csharp: 'C#',
  css: 'CSS',
  diff: 'diff',
  dockerfile: 'Dockerfile',
  go: 'Go',
  ini: 'INI',
  java: 'Java',
  javascript: 'JavaScript',
  json: 'JSON',
  kotlin: 'Kotlin',
  markdown: 'Markdown',
  php: 'PHP',
  python: 'Python',
  ruby: 'Ruby',
  rust: 'Rust',
  shell: 'shell',
  sql: 'SQL',
  swift: 'Swift',
  typescript: 'TypeScript',
  xml: 'XML',
  yaml: 'YAML',
};
/** Aliases that name a language of their own, though another one's highlighter serves them. */
const ALIAS_DISPLAY_NAMES: Record<string, string> = {
  zsh: 'Zsh',
  toml: 'TOML',
  jsx: 'JSX',
  tsx: 'TSX',
  console: 'console',
  html: 'HTML',
  svg: 'SVG',
  patch: 'patch',
};

/**
 * The name of the language a fence name stands for, as people write it ("ts" → "TypeScript"), or
 * undefined when no highlighter is offered for it (the block is then just "code").
 */
export function languageDisplayName(fenceName: string): string | undefined {
  const name = fenceName.trim().toLowerCase();
  const language = languageFor(name);
  if (language === undefined) return undefined;
  return ALIAS_DISPLAY_NAMES[name] ?? DISPLAY_NAMES[language as OfferedLanguage];
}

/** The highlight.js language a fence name stands for, or undefined when none is offered. */
export function languageFor(fenceName: string): string | undefined {
  const name = fenceName.trim().toLowerCase();
  const resolved = ALIASES[name] ?? name;
  return Object.hasOwn(LANGUAGE_LOADERS, resolved) ? resolved : undefined;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Escaped HTML for `code`: highlighted when `language` is loaded, else the plain text. */
export function highlightCode(code: string, language: string | undefined): string {
  if (language === undefined || !hljs.getLanguage(language)) return escapeHtml(code);
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

export function isLanguageLoaded(language: string): boolean {
  return hljs.getLanguage(language) !== undefined;
}

const loading = new Map<string, Promise<void>>();
/** Loads and registers a language once; resolves when it can highlight. */
export function loadLanguage(language: string): Promise<void> {
  const loader = Object.hasOwn(LANGUAGE_LOADERS, language)
    ? LANGUAGE_LOADERS[language as OfferedLanguage]
    : undefined;
  if (!loader) return Promise.reject(new Error(`No highlighter for "${language}".`));
  let pending = loading.get(language);
  if (!pending) {
    pending = loader().then((module) => {
      hljs.registerLanguage(language, module.default);
    });
    loading.set(language, pending);
  }
  return pending;
}
