// Planted: shape.ts needs area.ts only for a type, area.ts needs shape.ts's code: gone at run time, still a cycle.
import type { Area } from './area.ts';

export interface Square {
  side: number;
}

export const describeArea = (area: Area): string => `${area.value} square units`;
