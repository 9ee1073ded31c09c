// country-list ships no types; only what we call is declared.
declare module 'country-list' {
  export function getName(code: string): string | undefined;
  export function getCodes(): string[];
}
