export interface Limits {
  maxBytes: number;
}

export const DEFAULT_LIMITS: Limits = { maxBytes: 1024 };
