export const greeting = (): string => 'hello';
