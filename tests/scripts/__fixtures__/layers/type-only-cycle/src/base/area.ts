import { describeArea, type Square } from './shape.ts';

export interface Area {
  value: number;
}

export const areaText = (square: Square): string => describeArea({ value: square.side * square.side });
