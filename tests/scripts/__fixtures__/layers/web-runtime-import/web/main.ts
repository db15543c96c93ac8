// Planted: the type import is allowed; the value import pulls server code into the browser bundle.
import type { Limits } from '../src/core/limits.ts';
import { DEFAULT_LIMITS } from '../src/core/limits.ts';

export const limits: Limits = DEFAULT_LIMITS;
