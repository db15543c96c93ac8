/**
 * The one base of Mango's errors: every error the code throws on purpose carries a stable `code`, for
 * programs (a test, the HTTP mapping, a log search), and a `message` written for people, saying what was
 * wrong and what to do. Public codes keep the names their tables give them (the tool classifications of
 * `src/contracts/tool-error-classification.ts`, the HTTP `code` values); the local ones, which never
 * leave the process, are listed once in `local-error-codes.ts` ([errors](../../docs/errors.md)).
 */
export class MangoError extends Error {
  /** What went wrong, as a stable snake_case name (or, for a failed system call, its errno name). */
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
