/**
 * Where `src/` reads `process.env` outside `src/config/`: the configuration layer is the one place that
 * reads the process environment, so a variable is declared, parsed and documented once and every other
 * module is handed what it needs. Comments are not code and are not searched.
 *
 * Guarantees: `findEnvironmentReads(files, read)` returns one problem line per file that reads it, naming
 * the file and the first line, sorted by file.
 */

const READ = /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]/;

/** `text` with its comments blanked and its line breaks kept, so line numbers still hold. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:\\])\/\/.*$/gm, '$1');
}

export function findEnvironmentReads(files: readonly string[], read: (file: string) => string): string[] {
  const problems: string[] = [];
  for (const file of [...files].sort()) {
    if (!file.startsWith('src/') || file.startsWith('src/config/')) continue;
    const lines = withoutComments(read(file)).split('\n');
    const index = lines.findIndex((line) => READ.test(line));
    if (index >= 0) {
      problems.push(
        `process.env read outside src/config/: ${file}:${index + 1}; take the environment from src/config/process-environment.ts.`,
      );
    }
  }
  return problems;
}
